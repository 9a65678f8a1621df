/**
 * Reading the disk for the plan without ever following a symlink below a provider root: every
 * component from the root down is lstat-ed (cached per run), files are opened with O_NOFOLLOW,
 * and anything that is not a plain directory / regular file is "blocked" — the engine neither
 * reads nor writes through it. Components above a root are the user's business and not checked.
 */
import { constants, promises as fs } from "node:fs";
import path from "node:path";
import { sha256Hex } from "./lockfile.js";
import type { DiskFile } from "./plan.js";

/** True when `p` lies strictly under the directory `dir`. */
export function isUnder(p: string, dir: string): boolean {
  return p.startsWith(dir.endsWith(path.sep) ? dir : dir + path.sep);
}

/**
 * The root `p` is inside: strictly under a root directory, or equal to a root (a target may name
 * one shared file, e.g. `<project>/.mcp.json`, as a root of its own).
 */
export function rootOf(p: string, roots: readonly string[]): string | undefined {
  return roots.find((r) => p === r || isUnder(p, r));
}

/** The directories from `root` (included) down to `file`'s parent; none when file is the root. */
export function dirsBetween(root: string, file: string): string[] {
  if (file === root) return [];
  const rel = path.relative(root, path.dirname(file));
  const out = [root];
  if (rel === "") return out;
  let at = root;
  for (const part of rel.split(path.sep)) {
    at = path.join(at, part);
    out.push(at);
  }
  return out;
}

type DirState = "dir" | "absent" | { blocked: string };

/** lstat results of directories, shared by one run's reads (and dropped before writes). */
export class DirCache {
  private readonly states = new Map<string, Promise<DirState>>();

  state(dir: string): Promise<DirState> {
    let hit = this.states.get(dir);
    if (!hit) {
      hit = fs.lstat(dir).then(
        (st): DirState =>
          st.isSymbolicLink()
            ? { blocked: `${dir} is a symlink` }
            : st.isDirectory()
              ? "dir"
              : { blocked: `${dir} is not a directory` },
        (err: NodeJS.ErrnoException): DirState => {
          if (err.code === "ENOENT") return "absent";
          return { blocked: `${dir}: ${err.code ?? err.message}` };
        },
      );
      this.states.set(dir, hit);
    }
    return hit;
  }

  forget(): void {
    this.states.clear();
  }
}

/**
 * Why writing `file` under `root` is refused (a symlinked or non-directory component from the
 * root down), "absent" when some directory does not exist yet, or undefined when all exist.
 */
export async function ancestorProblem(
  root: string,
  file: string,
  cache: DirCache,
): Promise<string | "absent" | undefined> {
  for (const dir of dirsBetween(root, file)) {
    const st = await cache.state(dir);
    if (st === "absent") return "absent";
    if (st !== "dir") return st.blocked;
  }
  return undefined;
}

/** Opens `file` read-only without following a final symlink; null when it does not exist. */
export async function openNoFollow(file: string): Promise<fs.FileHandle | null> {
  try {
    return await fs.open(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return null;
    if (code === "ELOOP") throw new BlockedPath(`${file} is a symlink`);
    throw err;
  }
}

/** A path the engine will not read or write through. */
export class BlockedPath extends Error {}

/** Reads a regular file's bytes (no symlink), or null when absent. */
export async function readBytesNoFollow(file: string): Promise<Buffer | null> {
  const fh = await openNoFollow(file);
  if (!fh) return null;
  try {
    const st = await fh.stat();
    if (!st.isFile()) throw new BlockedPath(`${file} is not a regular file`);
    return await fh.readFile();
  } finally {
    await fh.close();
  }
}

/** The state of one path under `roots`, for the plan. */
export async function readDiskFile(
  file: string,
  roots: readonly string[],
  cache: DirCache,
): Promise<DiskFile> {
  const root = rootOf(file, roots);
  if (!root) return { state: "blocked", why: `${file} is outside the provider's folders` };
  const problem = await ancestorProblem(root, file, cache);
  if (problem === "absent") return { state: "absent" };
  if (problem) return { state: "blocked", why: problem };
  let fh: fs.FileHandle | null;
  try {
    fh = await openNoFollow(file);
  } catch (err) {
    if (err instanceof BlockedPath) return { state: "blocked", why: err.message };
    throw err;
  }
  if (!fh) return { state: "absent" };
  try {
    const st = await fh.stat();
    if (!st.isFile()) return { state: "blocked", why: `${file} is not a regular file` };
    const bytes = await fh.readFile();
    return { state: "file", sha256: sha256Hex(bytes), executable: (st.mode & 0o100) !== 0 };
  } finally {
    await fh.close();
  }
}

/** Reads many paths with bounded concurrency (thousands of small files on a sync). */
export async function readDiskFiles(
  files: readonly string[],
  roots: readonly string[],
  cache: DirCache,
  concurrency = 64,
): Promise<Map<string, DiskFile>> {
  const out = new Map<string, DiskFile>();
  let next = 0;
  const worker = async () => {
    while (next < files.length) {
      const file = files[next++] as string;
      out.set(file, await readDiskFile(file, roots, cache));
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, files.length) }, worker));
  return out;
}
