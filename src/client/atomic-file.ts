import { promises as fs } from "node:fs";
import path from "node:path";
import { writeFileAtomic as writeAtomically } from "../common/atomic-write.js";
import { ConfigError } from "./errors.js";
import { ESCAPE_NOTE, symlinkEscape } from "./symlink-escape.js";

/** Reads a file as UTF-8, or null when it does not exist. */
export async function readTextOrNull(file: string): Promise<string | null> {
  try {
    return await fs.readFile(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw err;
  }
}

export interface ClientWriteOptions {
  /** The mode to set; default: the existing file's mode, or 0600 for a new file. */
  mode?: number;
  /**
   * The folders this write belongs to (the user's home, a project directory): a write through
   * a symlink that leads out of them is refused (symlink-escape.ts).
   */
  within?: readonly string[];
}

/**
 * Writes a file atomically through the one atomic-write module (temp file in the same
 * directory, fsync, rename, directory fsync). The existing file's mode is kept unless `mode`
 * is given (0600 for a file that holds a literal token); a new file is created 0600, as the
 * agent tools create theirs (`~/.claude.json` holds OAuth state; docs/decisions.md, Client).
 * A file the user made read-only is refused: a rename would replace it regardless of its mode
 * (and root bypasses permission checks), so its write bits are what we honour. A symlink (a
 * dotfiles repository, say) is written through — its target is replaced, the link stays —
 * unless it leads out of `within`.
 */
export async function writeFileAtomic(
  linkOrFile: string,
  text: string,
  opts: ClientWriteOptions = {},
): Promise<void> {
  const escaped = opts.within ? symlinkEscape(linkOrFile, opts.within) : undefined;
  if (escaped !== undefined) {
    throw new ConfigError(
      `${escaped}; ${ESCAPE_NOTE} (make it a real folder or file, or point it inside)`,
    );
  }
  const file = await fs.realpath(linkOrFile).catch(() => linkOrFile);
  await fs.mkdir(path.dirname(file), { recursive: true });
  let existingMode: number | undefined;
  try {
    existingMode = (await fs.stat(file)).mode & 0o777;
  } catch {
    existingMode = undefined;
  }
  if (existingMode !== undefined && (existingMode & 0o222) === 0) {
    throw new ConfigError(
      `${file} is read-only; nothing was written to it (make it writable, or edit it by hand)`,
    );
  }
  await writeAtomically(file, text, { mode: opts.mode ?? existingMode ?? 0o600 });
}
