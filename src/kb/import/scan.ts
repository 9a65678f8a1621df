/**
 * The bounded walk of an import source (docs/import.md "What is read"): regular files only —
 * symlinks are listed and never followed, hidden segments (`.obsidian/`, `.git/`, `.trash/`,
 * dotfiles) skipped — and at most `maxFiles` files and `maxBytes` of Markdown, else
 * `too_large` naming the limit and the flag that raises it. Attachments are read later, one
 * at a time, through the same containment rules.
 */
import type { Dirent } from "node:fs";
import { lstat, readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { KbError } from "../../common/errors.js";
import { normalizeRelPath, resolveInside } from "../../common/paths.js";
import { MAX_CONCEPT_BYTES } from "../store/index-read.js";
import type { PlanProblem, ScanResult, SourceFile } from "./types.js";

export const DEFAULT_MAX_FILES = 50_000;
export const DEFAULT_MAX_BYTES = 512 * 1024 * 1024;

export interface ScanLimits {
  maxFiles: number;
  maxBytes: number;
}

export interface Scan extends ScanResult {
  /** Notes that could not be taken (too large for a concept, unreadable). */
  problems: PlanProblem[];
}

const isNote = (name: string) => name.toLowerCase().endsWith(".md");

async function entriesOf(root: string, rel: string): Promise<Dirent[]> {
  const entries = await readdir(rel === "" ? root : join(root, rel), { withFileTypes: true });
  return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** Walks `root` (an existing folder). Paths in the result are POSIX and source-relative, as on disk (links match them NFC). */
export async function scanSource(root: string, limits: ScanLimits): Promise<Scan> {
  const scan: Scan = { notes: [], files: [], symlinks: [], problems: [] };
  const found: Array<{ rel: string; size: number }> = [];
  let noteBytes = 0;
  const pending = [""];
  while (pending.length > 0) {
    const dir = pending.pop() as string;
    for (const entry of await entriesOf(root, dir)) {
      if (entry.name.startsWith(".")) continue;
      const rel = dir === "" ? entry.name : `${dir}/${entry.name}`;
      if (entry.isSymbolicLink()) scan.symlinks.push(rel);
      else if (entry.isDirectory()) pending.push(rel);
      else if (entry.isFile()) {
        const { size } = await lstat(join(root, rel));
        found.push({ rel, size });
        if (found.length > limits.maxFiles) {
          throw new KbError(
            "too_large",
            `the source holds more than ${limits.maxFiles} files: import a subfolder, or raise the limit with --max-files`,
          );
        }
        if (isNote(entry.name)) noteBytes += size;
        if (noteBytes > limits.maxBytes) {
          throw new KbError(
            "too_large",
            `the source's Markdown is more than ${limits.maxBytes} bytes: import a subfolder, or raise the limit with --max-bytes`,
          );
        }
      }
    }
  }
  for (const { rel, size } of found.sort((a, b) => (a.rel < b.rel ? -1 : 1))) {
    if (!isNote(rel)) {
      scan.files.push({ rel, size });
    } else if (size > MAX_CONCEPT_BYTES) {
      scan.problems.push({
        source: rel,
        message: `is ${size} bytes; a concept is at most ${MAX_CONCEPT_BYTES}: split it`,
      });
    } else {
      scan.notes.push({ rel, text: await readFile(join(root, rel), "utf8") });
    }
  }
  return scan;
}

/**
 * The bytes of source file `file` (a path the scan listed), refusing one that became a symlink
 * or a folder since, or grew past `maxBytes`.
 */
export async function readSourceFile(
  root: string,
  file: SourceFile,
  maxBytes: number,
): Promise<Buffer> {
  const abs = resolveInside(root, normalizeRelPath(file.rel, "source file"));
  const info = await lstat(abs);
  if (!info.isFile()) {
    throw new KbError(
      "invalid_argument",
      `${file.rel} is no longer a regular file: re-run the import`,
    );
  }
  if (info.size > maxBytes) {
    throw new KbError("too_large", `${file.rel} is ${info.size} bytes; the limit is ${maxBytes}`);
  }
  return readFile(abs);
}
