/**
 * What may have changed among the concept files since a recorded point, asked of git instead of a
 * stat walk (docs/decisions.md "A reconcile pass asks git what changed": a warm open of 100,000
 * concepts stat'ed every file and read every stored row, 8.2 s). A snapshot is HEAD plus the paths
 * `git status` reports under data/ and services/ (modified, deleted, untracked, ignored). A path
 * outside the union of two snapshots' paths and of the diff between their HEADs held the same
 * content at both points; only the others need a look (statConceptPaths). Any doubt (no git, a
 * nested repository or submodule, an unknown commit, a KB inside a larger repository) answers null:
 * the caller walks everything.
 */
import { lstatSync, realpathSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { UNSAFE_CHAR } from "../../common/paths.js";
import type { ConceptFileStat } from "../core/api.js";
import { candidatePaths } from "../core/ids.js";
import type { MapDescriptor } from "../core/types.js";
import { runGit } from "../git/git.js";
import { conceptIdOf } from "./store-read.js";

export interface TreeSnapshot {
  head: string;
  /** KB-root-relative files under data/ and services/ that git does not call clean. */
  dirty: string[];
}

const ROOTS = ["data", "services"];
/** Optional locks off: a status must not take `.git/index.lock` from a tool's commit. */
const STATUS = [
  "--no-optional-locks",
  "status",
  "--porcelain=v1",
  "-z",
  "--untracked-files=all",
  "--ignored=traditional",
  "--no-renames",
  "--",
  ...ROOTS,
];

/** HEAD and the paths git does not call clean, or null when git cannot say for this KB. */
export async function treeSnapshot(root: string): Promise<TreeSnapshot | null> {
  try {
    const [top, status] = await Promise.all([
      runGit(root, ["rev-parse", "--show-toplevel", "--verify", "HEAD"]),
      runGit(root, STATUS),
    ]);
    if (top.code !== 0 || status.code !== 0) return null;
    const [toplevel, head] = top.stdout.trim().split("\n");
    // Status paths are relative to the repository's top: only a KB that is one is handled.
    if (!toplevel || !head || realpathSync(toplevel) !== realpathSync(resolve(root))) return null;
    const dirty: string[] = [];
    for (const entry of status.stdout.split("\0")) {
      if (entry === "") continue;
      const path = entry.slice(3);
      if (path.endsWith("/")) return null; // a nested repository or an unlisted folder
      dirty.push(path);
    }
    return { head, dirty };
  } catch {
    return null; // git is not installed or cannot run
  }
}

/** Paths whose content may differ between two snapshots, or null when git cannot say. */
export async function changedBetween(
  root: string,
  from: TreeSnapshot,
  to: TreeSnapshot,
): Promise<Set<string> | null> {
  const paths = new Set([...from.dirty, ...to.dirty]);
  if (from.head === to.head) return namesFolder(root, paths) ? null : paths;
  const diff = await runGit(root, [
    "diff",
    "--name-only",
    "--no-renames",
    "-z",
    from.head,
    to.head,
    "--",
    ...ROOTS,
  ]).catch(() => null);
  if (diff === null || diff.code !== 0) return null; // e.g. the recorded commit is gone
  for (const path of diff.stdout.split("\0")) if (path !== "") paths.add(path);
  return namesFolder(root, paths) ? null : paths;
}

/**
 * True when git names a folder (a submodule, as a gitlink): changes inside it are not listed
 * path by path, while the concept walk indexes its files.
 */
function namesFolder(root: string, paths: Iterable<string>): boolean {
  for (const path of paths) {
    if (path.endsWith(".md")) continue;
    try {
      if (lstatSync(join(root, path)).isDirectory()) return true;
    } catch {
      // Gone: no folder.
    }
  }
  return false;
}

/**
 * The concept files behind `paths` as scanConcepts would list them: for every concept id a path
 * names, the file the walk picks (`<id>.md` before `<id>/index.md`, no hidden or unsafe name, no
 * symlinked folder or file). `ids` holds every id named, whether or not a file is left for it.
 */
export function statConceptPaths(
  root: string,
  maps: readonly MapDescriptor[],
  paths: Iterable<string>,
): { files: ConceptFileStat[]; ids: Set<string> } {
  const ids = new Set<string>();
  for (const path of paths) {
    const id = conceptIdOf(path, maps);
    if (id !== null) ids.add(id);
  }
  const realRoot = realpathSync(resolve(root));
  const files: ConceptFileStat[] = [];
  for (const id of [...ids].sort()) {
    for (const path of candidatePaths(id)) {
      if (conceptIdOf(path, maps) !== id) continue; // a map folder's index.md is no concept
      const stat = walkedFileStat(root, realRoot, path);
      if (stat) {
        files.push({ id, path, ...stat });
        break;
      }
    }
  }
  return { files, ids };
}

/** mtime and size of a file the concept walk would list (listWalkDir's rule), else null. */
function walkedFileStat(
  root: string,
  realRoot: string,
  path: string,
): { mtimeMs: number; size: number } | null {
  const names = path.split("/");
  if (names.some((n) => n.startsWith(".") || UNSAFE_CHAR.test(n))) return null;
  try {
    // The walk lists a folder only when no part of it is a symlink.
    const dir = dirname(path);
    if (realpathSync(join(root, dir)) !== join(realRoot, dir)) return null;
    const s = lstatSync(join(root, path));
    return s.isFile() ? { mtimeMs: s.mtimeMs, size: s.size } : null;
  } catch {
    return null; // missing (deleted, moved) or unreadable: not listed
  }
}
