/** The bounded source walk (src/kb/import/scan.ts): what is read, what is skipped, the caps. */
import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readSourceFile, scanSource } from "../../../src/kb/import/scan.js";
import { useTempDirs } from "../../support/temp-dir.js";
import { writeVault } from "./vault.js";

const temp = useTempDirs("carto-import-scan-");
const LIMITS = { maxFiles: 1000, maxBytes: 1024 * 1024 };

function vault(): string {
  const root = join(temp(), "vault");
  mkdirSync(root);
  writeVault(root);
  return root;
}

describe("scanSource", () => {
  it("reads notes and lists files; hidden folders are skipped and symlinks listed, never followed", async () => {
    const root = vault();
    mkdirSync(join(root, "linked-dir-target"));
    symlinkSync(join(root, "linked-dir-target"), join(root, "Linked"));
    const scan = await scanSource(root, LIMITS);
    expect(scan.notes.map((n) => n.rel)).toEqual([
      "Daily/2024-01-01.md",
      "Daily/Plan.md",
      "Home.md",
      "Projects/Alpha/Alpha.md",
      "Projects/Alpha/Plan.md",
      "Résumé Café.md",
      "日本語.md",
    ]);
    expect(scan.files.map((f) => f.rel)).toEqual([
      "attachments/diagram.png",
      "attachments/unused.pdf",
    ]);
    expect(scan.symlinks.sort()).toEqual(["Linked", "secret.md"]);
    expect(scan.notes.some((n) => n.text.includes("must never be imported"))).toBe(false);
  });

  it("refuses more files or more Markdown than the limits, naming the flag that raises them", async () => {
    const root = vault();
    await expect(scanSource(root, { ...LIMITS, maxFiles: 3 })).rejects.toThrow(
      /more than 3 files: import a subfolder, or raise the limit with --max-files/,
    );
    await expect(scanSource(root, { ...LIMITS, maxBytes: 50 })).rejects.toThrow(
      /more than 50 bytes: .*--max-bytes/,
    );
  });

  it("readSourceFile refuses a listed file that became a symlink or grew past the limit", async () => {
    const root = vault();
    const scan = await scanSource(root, LIMITS);
    const png = scan.files[0];
    if (!png) throw new Error("no file");
    expect([...(await readSourceFile(root, png, 100))]).toEqual([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);
    await expect(readSourceFile(root, png, 3)).rejects.toThrow(/is 7 bytes; the limit is 3/);
    await expect(readSourceFile(root, { rel: "secret.md", size: 1 }, 100)).rejects.toThrow(
      /no longer a regular file/,
    );
    await expect(readSourceFile(root, { rel: "../outside.md", size: 1 }, 100)).rejects.toThrow(
      /escapes/,
    );
  });
});
