/**
 * The repository index cache, `~/.config/cartographer/repos.json`, in the Go client's shape
 * (`{"roots": [...], "repos": {"<key>": ["<path>", ...]}}`), so either client reuses the other's
 * scan; `scanned_at` and `complete` are ours and Go ignores them. A cache that does not parse
 * is treated as absent (it is only a cache) and replaced by the next scan.
 */
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { readTextOrNull, writeFileAtomic } from "../atomic-file.js";

export interface RepoCache {
  /** search_roots as configured (`~` unexpanded) when it was scanned. */
  roots: string[];
  /** key → clone paths, nearest first. */
  repos: Record<string, string[]>;
  scanned_at?: string;
  /** False when a bound stopped the scan (scan.ts). */
  complete?: boolean;
}

export function repoCachePath(home: string): string {
  return path.join(home, ".config", "cartographer", "repos.json");
}

/** The cache, or undefined when absent or not in the expected shape. */
export async function loadRepoCache(file: string): Promise<RepoCache | undefined> {
  let raw: unknown;
  try {
    const text = await readTextOrNull(file);
    if (text === null) return undefined;
    raw = JSON.parse(text);
  } catch {
    return undefined;
  }
  const o = raw as Partial<RepoCache> | null;
  if (!o || typeof o !== "object" || !Array.isArray(o.roots) || !o.repos) return undefined;
  if (typeof o.repos !== "object" || Array.isArray(o.repos)) return undefined;
  const repos: Record<string, string[]> = {};
  for (const [key, paths] of Object.entries(o.repos)) {
    if (Array.isArray(paths) && paths.every((p) => typeof p === "string" && path.isAbsolute(p)))
      repos[key] = paths;
  }
  const roots = o.roots.filter((r): r is string => typeof r === "string");
  return { ...o, roots, repos };
}

/** Writes the cache atomically (mode 0600: it lists the user's folders), creating its folder. */
export async function saveRepoCache(file: string, cache: RepoCache, home: string): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFileAtomic(file, `${JSON.stringify(cache, null, 2)}\n`, { within: [home] });
}
