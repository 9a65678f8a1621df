/**
 * Finds the git clones under the search roots: a bounded breadth-first walk (docs/client.md
 * "Local paths: `resolve` and placeholders" gives the figures). It never follows a symlink below
 * a root, never enters a hidden folder, `node_modules` or `vendor`, never descends into a clone
 * (its own sub-repositories are not separate keys), and skips a folder it may not read.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { originKeyOf } from "./git-origin.js";

export interface ScanLimits {
  /** Folder levels below a root that are looked at (the root is level 0). */
  maxDepth: number;
  /** Folders read in all, over every root. */
  maxDirs: number;
  /** Milliseconds the walk may take. */
  budgetMs: number;
}

export const SCAN_LIMITS: ScanLimits = { maxDepth: 4, maxDirs: 20_000, budgetMs: 5_000 };

/** Folders that hold no clone of interest and are large. */
const HEAVY = new Set(["node_modules", "vendor"]);

/** Folders read at once: a walk is mostly waiting on the disk. */
const PARALLEL = 16;

/** One folder: a clone (its key), a folder to go into, or undefined when unreadable. */
async function look(
  dir: string,
): Promise<FoundRepo | { children: string[] } | { clone: true } | undefined> {
  const entries = await fs.readdir(dir, { withFileTypes: true }).catch(() => undefined);
  if (!entries) return undefined;
  if (entries.some((e) => e.name === ".git")) {
    const key = await originKeyOf(dir);
    return key === undefined ? { clone: true } : { key, dir };
  }
  const children = entries
    .filter((e) => e.isDirectory() && !e.name.startsWith(".") && !HEAVY.has(e.name))
    .map((e) => path.join(dir, e.name));
  return { children };
}

export interface FoundRepo {
  /** The origin's key (remote-key.ts). */
  key: string;
  /** Absolute path of the clone. */
  dir: string;
}

export interface ScanResult {
  /** In root order, then breadth-first: the first clone of a key is the nearest. */
  repos: FoundRepo[];
  /** Folders read. */
  visited: number;
  /** Folders that could not be read (permissions), skipped. */
  unreadable: number;
  /** Set when a bound stopped the walk early: the index may miss clones. */
  truncated?: "dirs" | "time";
}

/** Walks absolute `roots` in order; a root that is missing or not a folder is skipped. */
export async function scanRoots(
  roots: readonly string[],
  limits: ScanLimits = SCAN_LIMITS,
  now: () => number = Date.now,
): Promise<ScanResult> {
  const result: ScanResult = { repos: [], visited: 0, unreadable: 0 };
  const deadline = now() + limits.budgetMs;
  for (const root of roots) {
    // The root itself may be a symlink (~/Documents into a synced folder): the user named it.
    const stat = await fs.stat(root).catch(() => undefined);
    if (!stat?.isDirectory()) continue;
    let level: string[] = [root];
    for (let depth = 0; depth <= limits.maxDepth && level.length > 0; depth++) {
      const next: string[] = [];
      for (let at = 0; at < level.length; at += PARALLEL) {
        const room = limits.maxDirs - result.visited;
        if (room <= 0) result.truncated = "dirs";
        else if (now() > deadline) result.truncated = "time";
        if (result.truncated) return result;
        const batch = level.slice(at, at + Math.min(PARALLEL, room));
        result.visited += batch.length;
        // Read together, used in order: the outcome is the sequential walk's.
        for (const seen of await Promise.all(batch.map(look))) {
          if (seen === undefined) result.unreadable++;
          else if ("key" in seen) result.repos.push(seen);
          else if ("children" in seen) next.push(...seen.children);
        }
      }
      level = next.sort();
    }
  }
  return result;
}
