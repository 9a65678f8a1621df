import { promises as fs } from "node:fs";
import path from "node:path";
import { writeFileAtomic as writeAtomically } from "../kb/atomic-write.js";
import { ConfigError } from "./errors.js";

/** Reads a file as UTF-8, or null when it does not exist. */
export async function readTextOrNull(file: string): Promise<string | null> {
  try {
    return await fs.readFile(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw err;
  }
}

/**
 * Writes a file atomically through the one atomic-write module (temp file in the same
 * directory, fsync, rename, directory fsync). The existing file's mode is kept unless `mode`
 * is given (0600 for a file that holds a literal token).
 * A file the user made read-only is refused: a rename would replace it regardless of its mode
 * (and root bypasses permission checks), so its write bits are what we honour. A symlink (a
 * dotfiles repository, say) is written through: its target is replaced, the link stays.
 */
export async function writeFileAtomic(
  linkOrFile: string,
  text: string,
  mode?: number,
): Promise<void> {
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
  await writeAtomically(file, text, { mode: mode ?? existingMode ?? 0o644 });
}
