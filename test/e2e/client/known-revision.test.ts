/**
 * `known_revision` end to end (built server, real HTTP; the sync command in-process so its
 * requests can be observed on the wire): a second sync asks with the cached revision and the
 * server answers `unchanged`; a provisioned file deleted by hand is still repaired from the
 * cached manifest, and an out-of-band edit of a KB skill file reaches the providers on the next
 * sync (the server's manifest cache notices it).
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sync } from "../../../src/client/commands/sync.js";
import type { CommandIo } from "../../../src/client/lib/io.js";
import { useTempDirs } from "../../support/temp-dir.js";
import type { RunningServer } from "../helpers.js";
import { FIXTURE_SKILL, fixtureKb, SKILL_DIRS, serveFixture } from "./fixture.js";

const newDir = useTempDirs("carto-known-rev-e2e-", "file");
let home: string;
let kb: string;
let server: RunningServer;
/** The JSON-RPC bodies of every tools/call artifact_manifest and the text answered. */
const calls: { args: Record<string, unknown>; answer: string }[] = [];

const observingFetch: typeof fetch = async (input, init) => {
  const res = await fetch(input, init);
  const body = typeof init?.body === "string" ? JSON.parse(init.body) : null;
  if (body?.method !== "tools/call" || body.params?.name !== "artifact_manifest") return res;
  const text = await res.clone().text();
  const answer = JSON.parse(text).result?.content?.[0]?.text ?? text;
  calls.push({ args: body.params.arguments ?? {}, answer });
  return res;
};

function io(): CommandIo & { err: () => string } {
  let err = "";
  return {
    home,
    cwd: home,
    env: {},
    stdout: { write: () => true },
    stderr: { write: (c: string) => (err += c) },
    fetch: observingFetch,
    err: () => err,
  };
}

beforeAll(async () => {
  const dir = newDir();
  home = join(dir, "home");
  kb = fixtureKb(dir);
  server = await serveFixture(dir, []);
  mkdirSync(home, { recursive: true });
  writeFileSync(
    join(home, ".cartographer.yaml"),
    `server_url: ${server.url}\ntrust: [homelab]\nproviders:\n  - name: claude\n  - name: codex\n`,
  );
}, 60_000);

afterAll(async () => {
  await server?.stop();
});

describe("sync with known_revision", () => {
  const skillFile = () => join(home, SKILL_DIRS.claude as string, FIXTURE_SKILL, "SKILL.md");

  it("asks with the cached revision, gets unchanged, and still repairs a file deleted by hand", async () => {
    const first = io();
    expect(await sync(first), first.err()).toBe(0);
    expect(calls.at(-1)?.args.known_revision).toBeUndefined();
    const revision = JSON.parse(calls.at(-1)?.answer ?? "{}").revision as string;
    const text = readFileSync(skillFile(), "utf8");
    rmSync(skillFile());
    const second = io();
    expect(await sync(second), second.err()).toBe(0);
    expect(calls.at(-1)?.args.known_revision).toBe(revision);
    expect(JSON.parse(calls.at(-1)?.answer ?? "{}")).toEqual({
      kb: "homelab",
      revision,
      unchanged: true,
    });
    expect(existsSync(skillFile())).toBe(true);
    expect(readFileSync(skillFile(), "utf8")).toBe(text);
  });

  it("an out-of-band edit of the KB's skill reaches the provider on the next sync", async () => {
    const source = join(kb, "skills", FIXTURE_SKILL, "SKILL.md");
    const edited = `${readFileSync(source, "utf8")}\nEdited beside the server.\n`;
    writeFileSync(source, edited);
    const run = io();
    expect(await sync(run), run.err()).toBe(0);
    expect(JSON.parse(calls.at(-1)?.answer ?? "{}").unchanged).toBeUndefined();
    expect(readFileSync(skillFile(), "utf8")).toBe(edited);
  });
});
