/**
 * Reading the disk for the plan without ever following a symlink below a provider root: every
 * component from the root down is lstat-ed (cached per run), files are opened with O_NOFOLLOW,
 * and anything that is not a plain directory / regular file is "blocked" — the engine neither
 * reads nor writes through it. Components above a root are the user's business and not checked.
 */
import fs, { constants } from "node:fs";
import path from "node:path";
import { ESCAPE_NOTE, symlinkEscape } from "../symlink-escape.js";
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

/**
 * lstat results of directories, shared by one run's reads. The reads are synchronous on
 * purpose: thousands of small files through the thread pool cost several times more than
 * plain syscalls, and a CLI has nothing else to do meanwhile (the figure in docs/benchmarks.md).
 * `anchors`: the folders the binding's writes stay in (its home or project directory).
 */
export class DirCache {
  private readonly states = new Map<string, DirState>();

  constructor(private readonly anchors: readonly string[] = []) {}

  state(dir: string): DirState {
    let hit = this.states.get(dir);
    if (hit === undefined) {
      try {
        const st = fs.lstatSync(dir);
        hit = st.isSymbolicLink()
          ? { blocked: `${dir} is a symlink` }
          : st.isDirectory()
            ? "dir"
            : { blocked: `${dir} is not a directory` };
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        hit = code === "ENOENT" ? "absent" : { blocked: `${dir}: ${code ?? String(err)}` };
      }
      this.states.set(dir, hit);
    }
    return hit;
  }

  /** Why `p` lies behind a symlink that leaves the anchors (with the note), or undefined. */
  escape(p: string): string | undefined {
    const why = symlinkEscape(p, this.anchors);
    return why === undefined ? undefined : `${why}; ${ESCAPE_NOTE}`;
  }

  /**
   * A provider root (`~/.claude`, `~/.agents/skills`) may be reached through symlinks — a
   * dotfiles folder — as long as they stay inside the anchors, the rule connect's own writes
   * follow too (symlink-escape.ts); below the root no symlink is ever followed.
   */
  rootState(root: string): DirState {
    const key = `root:${root}`;
    let hit = this.states.get(key);
    if (hit === undefined) {
      const escaped = this.escape(root);
      if (escaped !== undefined) hit = { blocked: escaped };
      else {
        hit = this.state(root);
        if (typeof hit === "object" && hit.blocked === `${root} is a symlink`) {
          hit = fs.statSync(root, { throwIfNoEntry: false })?.isDirectory()
            ? "dir"
            : { blocked: `${root} is a symlink to something that is not a directory` };
        }
      }
      this.states.set(key, hit);
    }
    return hit;
  }
}

/**
 * Why writing `file` under `root` is refused (a symlinked or non-directory component below the
 * root, a root reached through a symlink that leaves the anchors), "absent" when some directory
 * does not exist yet, or undefined when all exist.
 */
export function ancestorProblem(
  root: string,
  file: string,
  cache: DirCache,
): string | "absent" | undefined {
  for (const dir of dirsBetween(root, file)) {
    const st = dir === root ? cache.rootState(dir) : cache.state(dir);
    if (st === "absent") return "absent";
    if (st !== "dir") return st.blocked;
  }
  // A file that is a root of its own (`~/.claude.json`): its folder must not lead out either.
  if (file === root) return cache.escape(root);
  return undefined;
}

/** A path the engine will not read or write through. */
export class BlockedPath extends Error {}

/** Opens `file` read-only without following a final symlink; null when it does not exist. */
function openNoFollow(file: string): number | null {
  try {
    return fs.openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return null;
    if (code === "ELOOP") throw new BlockedPath(`${file} is a symlink`);
    throw err;
  }
}

/** A regular file's bytes and mode (opened without following a symlink), or null when absent. */
function readNoFollow(file: string): { bytes: Buffer; mode: number } | null {
  const fd = openNoFollow(file);
  if (fd === null) return null;
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) throw new BlockedPath(`${file} is not a regular file`);
    return { bytes: fs.readFileSync(fd), mode: st.mode };
  } finally {
    fs.closeSync(fd);
  }
}

/** Reads a regular file's bytes (no symlink), or null when absent. */
export async function readBytesNoFollow(file: string): Promise<Buffer | null> {
  return readNoFollow(file)?.bytes ?? null;
}

/** The state of one path under `roots`, for the plan. */
export function readDiskFile(file: string, roots: readonly string[], cache: DirCache): DiskFile {
  const root = rootOf(file, roots);
  if (!root) return { state: "blocked", why: `${file} is outside the provider's folders` };
  const problem = ancestorProblem(root, file, cache);
  if (problem === "absent") return { state: "absent" };
  if (problem) return { state: "blocked", why: problem };
  try {
    const read = readNoFollow(file);
    if (!read) return { state: "absent" };
    return { state: "file", sha256: sha256Hex(read.bytes), executable: (read.mode & 0o100) !== 0 };
  } catch (err) {
    if (err instanceof BlockedPath) return { state: "blocked", why: err.message };
    throw err;
  }
}

/** Reads many paths (thousands of small files on a sync). */
export async function readDiskFiles(
  files: readonly string[],
  roots: readonly string[],
  cache: DirCache,
): Promise<Map<string, DiskFile>> {
  const out = new Map<string, DiskFile>();
  for (const file of files) out.set(file, readDiskFile(file, roots, cache));
  return out;
}
