/** Small filesystem readers shared by the store modules. */
import {
  closeSync,
  constants,
  type Dirent,
  fstatSync,
  openSync,
  readFileSync,
  realpathSync,
  type Stats,
} from "node:fs";
import { lstat, open, readdir } from "node:fs/promises";
import { dirname, join, resolve, sep } from "node:path";
import { KbError } from "../../common/errors.js";
import { resolveInside, UNSAFE_CHAR } from "../../common/paths.js";

const realRoots = new Map<string, string>();

function realRoot(root: string): string {
  const key = resolve(root);
  let real = realRoots.get(key);
  if (real === undefined) {
    try {
      real = realpathSync.native(key);
    } catch {
      real = key;
    }
    realRoots.set(key, real);
  }
  return real;
}

/**
 * The real path of a KB-root-relative file, or null when it does not exist. Refuses
 * (`invalid_argument`) a path whose existing part resolves outside the KB through a symlink:
 * `resolveInside` is lexical, and a symlinked folder or file must not lead a read or a write
 * elsewhere on disk (a cloned KB can carry symlinks). A symlink loop is refused the same way.
 * One realpath syscall on the calling thread per component tried: a round trip through the
 * thread pool every file operation shares cost more than the read itself under load
 * (docs/decisions.md "one pass per request").
 */
export function realPathInsideSync(root: string, rel: string): string | null {
  const base = realRoot(root);
  const top = resolve(root);
  let probe = resolveInside(root, rel);
  let missing = false;
  for (;;) {
    let real: string;
    try {
      real = realpathSync.native(probe);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === "ELOOP") {
        throw new KbError(
          "invalid_argument",
          `path "${rel}" is or goes through a symlink loop: remove the symlink`,
          { path: rel },
        );
      }
      if (code !== "ENOENT" && code !== "ENOTDIR") throw e;
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

/** {@link realPathInsideSync} for the callers that await it. */
export async function realPathInside(root: string, rel: string): Promise<string | null> {
  return realPathInsideSync(root, rel);
}

/**
 * An open descriptor and the size of the regular file at `real` (non-blocking open, checked on
 * the descriptor, as readRegular); null when it is no regular file or vanished. The caller
 * closes `fd`.
 */
export function openRegularSync(
  real: string,
): { fd: number; size: number; mtimeMs: number } | null {
  let fd: number;
  try {
    fd = openSync(real, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (isVanished(e) || code === "EISDIR") return null;
    throw e;
  }
  try {
    const stat = fstatSync(fd);
    if (stat.isFile()) return { fd, size: stat.size, mtimeMs: stat.mtimeMs };
  } catch (e) {
    closeSync(fd);
    throw e;
  }
  closeSync(fd);
  return null;
}

/**
 * The entries of a KB folder a walk may list: the ONE containment rule every walk (concept scan,
 * index reconcile, lists, graph, lint, assets, templates, skills, maps) goes through. The folder
 * is listed only when its real path is exactly `<real root>/<rel>`: a folder that is, or lies
 * under, a symlink is skipped whether it leads outside the KB (a leak) or inside (a duplicate
 * under a second id). Missing or vanished folders list as empty; hidden entries are dropped.
 * Symlinked entries come back as Dirent symlinks, which no walk follows.
 */
export async function listWalkDir(root: string, rel: string): Promise<Dirent[]> {
  let real: string | null;
  try {
    real = await realPathInside(root, rel);
  } catch (e) {
    // Leads outside through a symlink, or a symlink loop (`services -> services`): not walked.
    if (e instanceof KbError) return [];
    throw e;
  }
  if (real === null || real !== join(realRoot(root), rel)) return [];
  try {
    return (await readdir(real, { withFileTypes: true })).filter((e) => !e.name.startsWith("."));
  } catch (e) {
    if (isVanished(e)) return [];
    throw e;
  }
}

/**
 * Every regular file (KB-root-relative paths, sorted) under `dir`, through {@link listWalkDir}:
 * hidden entries, symlinks, symlinked folders and names with control or bidi characters skipped.
 * `accept` filters file names.
 */
export async function walkFiles(
  root: string,
  dir: string,
  accept: (name: string) => boolean = () => true,
): Promise<string[]> {
  const out: string[] = [];
  const visit = async (rel: string): Promise<void> => {
    const subdirs: string[] = [];
    for (const e of await listWalkDir(root, rel)) {
      // A name no tool may address (control or bidi characters) is never listed either.
      if (UNSAFE_CHAR.test(e.name)) continue;
      const child = `${rel}/${e.name}`;
      if (e.isDirectory()) subdirs.push(child);
      else if (e.isFile() && accept(e.name)) out.push(child);
    }
    await Promise.all(subdirs.map(visit));
  };
  await visit(dir);
  return out.sort();
}

/** True for the errors of a file or folder that vanished (or was replaced) under a reader. */
export function isVanished(e: unknown): boolean {
  const code = (e as NodeJS.ErrnoException)?.code;
  return code === "ENOENT" || code === "ENOTDIR";
}

/**
 * Refuses, before anything touches disk, a path whose existing components are the wrong kind:
 * a symlink anywhere, a file where a folder must be, or a folder where the file would go (the
 * write would otherwise fail late with EISDIR/ENOTDIR).
 */
export async function refuseWrongKinds(root: string, rel: string): Promise<void> {
  const parts = rel.split("/");
  for (let i = 1; i <= parts.length; i++) {
    const sub = parts.slice(0, i).join("/");
    let stat: Stats;
    try {
      stat = await lstat(resolveInside(root, sub));
    } catch {
      return; // Missing component: nothing deeper exists either.
    }
    if (stat.isSymbolicLink()) {
      throw new KbError("invalid_argument", `path "${rel}" goes through the symlink ${sub}`);
    }
    const last = i === parts.length;
    if (last && stat.isDirectory()) {
      throw new KbError(
        "invalid_argument",
        `path "${rel}" is a folder, not a file: name a file inside it, e.g. ${rel}/<name>`,
        { path: rel },
      );
    }
    if (!last && !stat.isDirectory()) {
      throw new KbError(
        "invalid_argument",
        `path "${rel}": "${sub}" is a file, so nothing can be stored under it`,
        { path: rel },
      );
    }
  }
}

/**
 * Bytes of a regular file, or null when `real` is anything else. Opened non-blocking and checked
 * on the open handle: a FIFO or device planted in a KB would otherwise hang a read (and with it
 * a thread of the pool every file operation shares) or never end.
 */
async function readRegular(real: string): Promise<Buffer | null> {
  const handle = await open(real, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    if (!(await handle.stat()).isFile()) return null;
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

/** UTF-8 text of a KB-root-relative file, or null when it does not exist (or is no regular file). */
export async function readTextOrNull(root: string, rel: string): Promise<string | null> {
  const bytes = await readBytesOrNull(root, rel);
  return bytes === null ? null : bytes.toString("utf8");
}

/** Raw bytes of a KB-root-relative file, or null when it does not exist (or is no regular file). */
export async function readBytesOrNull(root: string, rel: string): Promise<Buffer | null> {
  try {
    const real = await realPathInside(root, rel);
    return real === null ? null : await readRegular(real);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR" || code === "EISDIR") return null;
    throw e;
  }
}

/**
 * Bytes and mode bits of a file a walk just listed (its folder's real path
 * already checked by {@link listWalkDir}): opened with O_NOFOLLOW, so a file swapped for a
 * symlink since the walk is refused (ELOOP → null) instead of followed. Many small files read
 * this way cost a fraction of one async open+stat+read each on a busy thread pool.
 */
export function readListedFileSync(
  root: string,
  rel: string,
): { bytes: Buffer; mode: number } | null {
  let fd: number;
  try {
    fd = openSync(
      resolveInside(root, rel),
      constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK,
    );
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (isVanished(e) || code === "ELOOP" || code === "EISDIR") return null;
    throw e;
  }
  try {
    const stat = fstatSync(fd);
    return stat.isFile() ? { bytes: readFileSync(fd), mode: stat.mode } : null;
  } finally {
    closeSync(fd);
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
