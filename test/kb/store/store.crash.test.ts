import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseDocument, serializeDocument } from "../../../src/kb/core/frontmatter.js";
import { freshKb, type TempKb } from "../helpers.js";
import { versionBody } from "./kill-versions.js";

let kb: TempKb;
beforeEach(async () => {
  kb = await freshKb();
});
afterEach(async () => kb.cleanup());

async function killMidWrite(delayMs: number): Promise<void> {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", join(import.meta.dirname, "kill-writer.ts"), kb.root],
    {
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  await new Promise<void>((resolve, reject) => {
    child.stdout.once("data", () => resolve());
    child.once("exit", (code) => reject(new Error(`writer exited early with ${code}`)));
  });
  await new Promise((r) => setTimeout(r, delayMs));
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGKILL");
  await exited;
}

describe("a write interrupted by SIGKILL", () => {
  it("never leaves a half-written concept", async () => {
    for (const delay of [37, 113]) {
      await killMidWrite(delay);
      const text = await readFile(join(kb.root, "data/crash/target.md"), "utf8");
      const doc = parseDocument(text);
      const version = doc.frontmatter.version;
      expect(typeof version).toBe("number");
      expect(text).toBe(
        serializeDocument(
          { type: "note", version: version as number },
          versionBody(version as number),
        ),
      );
      // The concept still reads through the store (temp files are invisible to the walk).
      expect((await kb.store.scanConceptFiles()).map((f) => f.id)).toEqual(["crash/target"]);
    }
  });
});
