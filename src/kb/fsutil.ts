/** Small filesystem readers shared by the store modules. */
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
