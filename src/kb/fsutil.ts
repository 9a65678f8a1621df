/** Small filesystem readers shared by the store modules. */
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { resolveInside } from "./paths.js";

/** UTF-8 text of a KB-root-relative file, or null when it does not exist. */
export async function readTextOrNull(root: string, rel: string): Promise<string | null> {
  try {
    return await readFile(resolveInside(root, rel), "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR" || code === "EISDIR") return null;
    throw e;
  }
}

/** Raw bytes of a KB-root-relative file, or null when it does not exist. */
export async function readBytesOrNull(root: string, rel: string): Promise<Buffer | null> {
  try {
    return await readFile(resolveInside(root, rel));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR" || code === "EISDIR") return null;
    throw e;
  }
}

/** Maps `fn` over `items` with at most `width` promises in flight, keeping order. */
export async function mapBatched<T, R>(
  items: T[],
  width: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const workers = Array.from({ length: Math.min(width, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i] as T);
    }
  });
  await Promise.all(workers);
  return out;
}

/**
 * Reads many small text files (null when missing). Synchronous reads in chunks, yielding to
 * the event loop between chunks: several times faster than one async readFile per file on
 * a busy thread pool (10,000 concepts), while no chunk blocks the loop for long.
 */
export async function readTextsChunked(
  root: string,
  paths: string[],
  chunk = 200,
): Promise<Array<string | null>> {
  const out: Array<string | null> = new Array(paths.length);
  for (let start = 0; start < paths.length; start += chunk) {
    const end = Math.min(paths.length, start + chunk);
    for (let i = start; i < end; i++) {
      try {
        out[i] = readFileSync(resolveInside(root, paths[i] as string), "utf8");
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code !== "ENOENT" && code !== "ENOTDIR" && code !== "EISDIR") throw e;
        out[i] = null;
      }
    }
    if (end < paths.length) await new Promise((r) => setImmediate(r));
  }
  return out;
}
