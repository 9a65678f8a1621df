/**
 * The one atomic-write primitive (design.md P3; decisions.md "One atomic-write module"): a
 * temp file in the target's own directory, written with O_EXCL, fsynced, renamed over the
 * target, then the directory fsynced. A reader sees the old bytes or the new bytes, never a
 * mix, and a crash leaves at most a stray temp file. Every whole-file write goes through here:
 * KB plans (apply.ts, which adds whole-set rollback), audit checkpoints and exports, client
 * files. An architecture test (test/architecture/atomic-write.test.ts) fails on any other
 * rename-based write in src/.
 */
import { randomBytes } from "node:crypto";
import { chmod, link, open, rename, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

/**
 * Marks temp files: they start with "." (KB walks skip dot files) and carry this marker, which
 * `.git/info/exclude` lists so git never sees one.
 */
export const TEMP_MARKER = ".cartographer-tmp-";

/** Mode of a file created without an explicit `mode` (the umask still applies). */
const DEFAULT_MODE = 0o644;

/** A fresh temp path beside `file`: `.<name>.cartographer-tmp-<12 hex>`. */
export function tempPathFor(file: string): string {
  return join(dirname(file), `.${basename(file)}${TEMP_MARKER}${randomBytes(6).toString("hex")}`);
}

/** Creates `path` exclusively (never follows or reuses an existing name), writes, fsyncs. */
export async function writeSynced(
  path: string,
  data: string | Uint8Array,
  mode: number = DEFAULT_MODE,
): Promise<void> {
  const fh = await open(path, "wx", mode);
  try {
    await fh.writeFile(data);
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/** Fsyncs a directory so a rename in it is durable; best effort (unsupported on some filesystems). */
export async function syncDir(dir: string): Promise<void> {
  try {
    const fh = await open(dir, "r");
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
  } catch {
    // Directory fsync is not available everywhere; the file itself is already durable.
  }
}

export interface AtomicWriteOptions {
  /**
   * Exact permission bits of the new file (applied with chmod, so the umask cannot narrow or
   * widen them). Without it the file is created 0644 less the umask.
   */
  mode?: number;
  /**
   * A batch of writes: the parent directory is added here instead of being fsynced, and the
   * caller fsyncs each directory once (`syncDirs`) before it records the batch as done.
   */
  deferDirSync?: Set<string>;
}

/**
 * Replaces `file` with `data` atomically and durably. The parent directory must exist. On
 * failure the temp file is removed and the target is untouched; the error is rethrown as is
 * (callers translate it into their own typed error).
 */
export async function writeFileAtomic(
  file: string,
  data: string | Uint8Array,
  opts: AtomicWriteOptions = {},
): Promise<void> {
  const temp = tempPathFor(file);
  try {
    await writeSynced(temp, data, opts.mode ?? DEFAULT_MODE);
    if (opts.mode !== undefined) await chmod(temp, opts.mode);
    await rename(temp, file);
  } catch (err) {
    await unlink(temp).catch(() => {});
    throw err;
  }
  if (opts.deferDirSync) opts.deferDirSync.add(dirname(file));
  else await syncDir(dirname(file));
}

/**
 * Creates `file` with `data` atomically and only when nothing is there (a hard link of the synced
 * temp file, which fails on an existing name): false, and nothing changed, when it exists.
 */
export async function createFileAtomic(file: string, data: string | Uint8Array): Promise<boolean> {
  const temp = tempPathFor(file);
  try {
    await writeSynced(temp, data);
    try {
      await link(temp, file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
      throw err;
    }
  } finally {
    await unlink(temp).catch(() => {});
  }
  await syncDir(dirname(file));
  return true;
}

/** Fsyncs each directory of a batch once (a few at a time: each is a disk round trip). */
export async function syncDirs(dirs: Iterable<string>, concurrency = 8): Promise<void> {
  const list = [...dirs];
  let next = 0;
  const worker = async () => {
    while (next < list.length) await syncDir(list[next++] as string);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, list.length) }, worker));
}
