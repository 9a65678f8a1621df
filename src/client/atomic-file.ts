import { randomBytes } from "node:crypto";
import { promises as fs } from "node:fs";
import path from "node:path";

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
 * Writes a file atomically: temp file in the same directory, fsync, rename. The existing
 * file's mode is kept unless `mode` is given (0600 for a file that holds a literal token).
 */
export async function writeFileAtomic(file: string, text: string, mode?: number): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  let finalMode = mode;
  if (finalMode === undefined) {
    try {
      finalMode = (await fs.stat(file)).mode & 0o777;
    } catch {
      finalMode = 0o644;
    }
  }
  const tmp = path.join(
    path.dirname(file),
    `.${path.basename(file)}.${randomBytes(6).toString("hex")}.tmp`,
  );
  const handle = await fs.open(tmp, "w", finalMode);
  try {
    await handle.writeFile(text, "utf8");
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await fs.chmod(tmp, finalMode);
    await fs.rename(tmp, file);
  } catch (err) {
    await fs.rm(tmp, { force: true });
    throw err;
  }
}
