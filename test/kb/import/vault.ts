/**
 * Vaults the import suites generate: nested folders, a duplicate name, embeds, an attachment,
 * unicode names, hidden folders and a symlink that must be skipped.
 */
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { ScanResult } from "../../../src/kb/import/types.js";

/** The sample vault, as source-relative path → content. */
export const SAMPLE_VAULT: Record<string, string | Buffer> = {
  "Home.md": "# Welcome\nStart at [[Plan]], then [[Projects/Alpha/Plan|the alpha plan]].\n#start\n",
  "Daily/2024-01-01.md": "# Day one\nWorked on [[Alpha#Goals]] and ![[diagram.png]].\n",
  "Daily/Plan.md": "A plan in the daily folder.\n",
  "Projects/Alpha/Alpha.md":
    "---\ntitle: Alpha (kept)\ntags: [project]\n---\n## Goals\nShip. #project #status/active\n![[Home]]\n```\n[[Ghost-in-code]] #notatag\n```\n",
  "Projects/Alpha/Plan.md":
    "# The plan\nBack to [home](../../Home.md) and [day](<../../Daily/2024-01-01.md#day-one>). [[Nowhere]]\n",
  "Résumé Café.md": "Unicode name, no heading.\n",
  "日本語.md": "No usable ASCII in the name.\n",
  "attachments/diagram.png": Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]),
  "attachments/unused.pdf": "pdf",
  ".obsidian/app.json": "{}",
  ".trash/Old.md": "deleted note",
};

/** Writes the sample vault under `root`, plus `secret.md` → a file outside it as a symlink. */
export function writeVault(
  root: string,
  files: Record<string, string | Buffer> = SAMPLE_VAULT,
): void {
  for (const [rel, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    writeFileSync(join(root, rel), content);
  }
  const outside = join(root, "..", "outside.md");
  writeFileSync(outside, "must never be imported\n");
  symlinkSync(outside, join(root, "secret.md"));
}

/** A scan result straight from a file map (the planner's input without a disk). */
export function scanOf(files: Record<string, string | Buffer>): ScanResult {
  const scan: ScanResult = { notes: [], files: [], symlinks: [] };
  for (const [rel, content] of Object.entries(files)) {
    if (rel.split("/").some((s) => s.startsWith("."))) continue;
    if (rel.endsWith(".md")) scan.notes.push({ rel, text: String(content) });
    else scan.files.push({ rel, size: Buffer.byteLength(content) });
  }
  return scan;
}
