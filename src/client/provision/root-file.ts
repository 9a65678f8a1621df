/**
 * A shared file that is a provider root of its own (`~/.claude.json`, `.mcp.json`, an
 * instructions file): unlike the folders below a root, it may be a symlink that stays inside the
 * user's folders (a dotfiles repository), read and written through — its target replaced, the
 * link kept — by the client's one writer (atomic-file.ts: the existing mode kept, 0600 for a new
 * file, a read-only file refused). A link that leads out of the folders is refused before
 * anything is read (symlink-escape.ts; docs/decisions.md "Client").
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { readTextOrNull, writeFileAtomic } from "../atomic-file.js";
import { ConfigError } from "../errors.js";
import { removeEmptyDirs } from "../leftovers.js";
import { ESCAPE_NOTE, symlinkEscape } from "../symlink-escape.js";

function refuseEscape(file: string, anchors: readonly string[], what: string): void {
  const escaped = symlinkEscape(file, anchors);
  if (escaped !== undefined) throw new ConfigError(`${escaped}; ${what}`);
}

/** The file's text through an inside link, or null when absent. */
export async function readRootFile(
  file: string,
  anchors: readonly string[],
): Promise<string | null> {
  refuseEscape(file, anchors, `${ESCAPE_NOTE} (make it a real folder or file, or point it inside)`);
  return readTextOrNull(file);
}

/**
 * Writes `text`, or — `removeBare` — removes a file our removal left bare, with the folders it
 * leaves empty. A symlinked bare file is written through instead: removing the link would leave
 * our part in its target.
 */
export async function writeRootFile(
  file: string,
  text: string,
  opts: { anchors: readonly string[]; mode?: number; removeBare: boolean },
): Promise<void> {
  const within = opts.anchors;
  if (opts.removeBare) {
    refuseEscape(file, within, "nothing is removed through it");
    if (!(await fs.lstat(file).catch(() => null))?.isSymbolicLink()) {
      await fs.rm(file, { force: true });
      await removeEmptyDirs(path.dirname(file), within);
      return;
    }
  }
  await writeFileAtomic(file, text, {
    ...(opts.mode !== undefined ? { mode: opts.mode } : {}),
    within,
  });
}
