/** Small filesystem readers shared by the store modules. */
import { readFileSync } from "node:fs";
import { readFile, realpath } from "node:fs/promises";
import { dirname, resolve, sep } from "node:path";
import { KbError } from "./errors.js";
import { resolveInside } from "./paths.js";

const realRoots = new Map<string, Promise<string>>();

function realRoot(root: string): Promise<string> {
  const key = resolve(root);
  let real = realRoots.get(key);
  if (!real) {
    real = realpath(key).catch(() => key);
    realRoots.set(key, real);
  }
  return real;
}

/**
 * The real path of a KB-root-relative file, or null when it does not exist. Refuses
 * (`invalid_argument`) a path whose existing part resolves outside the KB through a symlink:
 * `resolveInside` is lexical, and a symlinked folder or file must not lead a read or a write
 * elsewhere on disk (a cloned KB can carry symlinks).
 */
export async function realPathInside(root: string, rel: string): Promise<string | null> {
  const base = await realRoot(root);
  const top = resolve(root);
  let probe = resolveInside(root, rel);
  let missing = false;
  for (;;) {
    let real: string;
    try {
      real = await realpath(probe);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== "ENOENT" && code !== "ENOTDIR") throw e;
      // Missing (or a dangling link): the nearest existing ancestor decides.
      missing = true;
      if (probe === top || dirname(probe) === probe) return null;
      probe = dirname(probe);
      continue;
    }
    if (real !== base && !real.startsWith(base + sep)) {
      throw new KbError(
        "invalid_argument",
        `path "${rel}" leads outside the KB root through a symlink: remove the symlink`,
        { path: rel },
      );
    }
    return missing ? null : real;
  }
}

/** UTF-8 text of a KB-root-relative file, or null when it does not exist. */
export async function readTextOrNull(root: string, rel: string): Promise<string | null> {
  try {
    const real = await realPathInside(root, rel);
    return real === null ? null : await readFile(real, "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR" || code === "EISDIR") return null;
    throw e;
  }
}

/** Raw bytes of a KB-root-relative file, or null when it does not exist. */
export async function readBytesOrNull(root: string, rel: string): Promise<Buffer | null> {
  try {
    const real = await realPathInside(root, rel);
    return real === null ? null : await readFile(real);
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
