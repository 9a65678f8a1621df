/**
 * `{{repo:<ref>}}` → a local clone: the cached index (repo-cache.ts) first, a scan of the search
 * roots (scan.ts) when the cache misses, is stale or is for other roots. A cached path is
 * checked before it is answered — still a folder whose origin has that key — so a clone moved
 * or deleted since the last scan triggers a rescan instead of a wrong answer. At most one scan
 * per command run (docs/decisions.md "Resolve: when the index is rescanned").
 */
import path from "node:path";
import { originKeyOf } from "./git-origin.js";
import { type KeyMatch, matchKey } from "./remote-key.js";
import { loadRepoCache, type RepoCache, saveRepoCache } from "./repo-cache.js";
import { ResolveError } from "./resolve-error.js";
import { SCAN_LIMITS, type ScanLimits, type ScanResult, scanRoots } from "./scan.js";

export interface RepoIndexOptions {
  home: string;
  /** search_roots as configured; `~/` is expanded against `home`. */
  roots: readonly string[];
  cacheFile: string;
  /** The client yaml, named in the advice of a not-found message. */
  configFile: string;
  /** `--rescan`: ignore the cache, scan once. */
  rescan?: boolean;
  limits?: ScanLimits;
  now?: () => number;
  /** A dry run: scan if needed, but leave the cache file as it is. */
  keepCache?: boolean;
}

export interface RepoHit {
  path: string;
  key: string;
  warnings: string[];
}

/** `~` or `~/x` against `home`; other paths as they are. */
export function expandHome(p: string, home: string): string {
  if (p === "~") return home;
  return p.startsWith("~/") ? path.join(home, p.slice(2)) : p;
}

export class RepoIndex {
  private cache: RepoCache | undefined | null = null;
  private scanned: { index: RepoCache; scan: ScanResult } | undefined;

  constructor(private readonly opts: RepoIndexOptions) {}

  /** The clone `ref` names; throws ResolveError (not_found, ambiguous). */
  async find(ref: string): Promise<RepoHit> {
    if (!this.opts.rescan && !this.scanned) {
      const cached = await this.cached();
      if (cached) {
        const hit = await verified(cached, matchKey(Object.keys(cached.repos), ref));
        if (hit.kind === "found") return hit.value;
        if (hit.kind === "ambiguous") throw ambiguous(ref, hit.keys);
        // Missing or stale: a scan may find it.
      }
    }
    const { index, scan } = await this.scanOnce();
    const match = matchKey(Object.keys(index.repos), ref);
    if (match.kind === "ambiguous") throw ambiguous(ref, match.keys);
    if (match.kind === "none") throw this.notFound(ref, scan);
    return hitOf(match.key, index.repos[match.key] ?? []);
  }

  /** The last scan of this run, for a caller's report. */
  get lastScan(): ScanResult | undefined {
    return this.scanned?.scan;
  }

  private async cached(): Promise<RepoCache | undefined> {
    if (this.cache === null) {
      const c = await loadRepoCache(this.opts.cacheFile);
      const same = c && c.roots.join("\n") === this.opts.roots.join("\n");
      this.cache = same ? c : undefined;
    }
    return this.cache;
  }

  private async scanOnce(): Promise<{ index: RepoCache; scan: ScanResult }> {
    if (this.scanned) return this.scanned;
    const { home, roots } = this.opts;
    const scan = await scanRoots(
      roots.map((r) => expandHome(r, home)),
      this.opts.limits ?? SCAN_LIMITS,
      this.opts.now,
    );
    const repos: Record<string, string[]> = {};
    for (const r of scan.repos) repos[r.key] = [...(repos[r.key] ?? []), r.dir];
    const index: RepoCache = {
      roots: [...roots],
      repos,
      scanned_at: new Date((this.opts.now ?? Date.now)()).toISOString(),
      complete: scan.truncated === undefined,
    };
    // A cache that cannot be written costs the next run a scan, nothing more.
    if (!this.opts.keepCache)
      await saveRepoCache(this.opts.cacheFile, index, home).catch(() => undefined);
    this.scanned = { index, scan };
    return this.scanned;
  }

  private notFound(ref: string, scan: ScanResult): ResolveError {
    const roots = this.opts.roots.join(", ") || "(none)";
    const bound =
      scan.truncated === "dirs"
        ? `; the scan stopped at its limit of ${scan.visited} folders`
        : scan.truncated === "time"
          ? "; the scan stopped at its time limit"
          : "";
    return new ResolveError(
      "not_found",
      `repo:${ref}: no clone whose origin remote ends in "${ref}" under search_roots ${roots} (${scan.visited} folders scanned, ${scan.repos.length} clones found, depth ${(this.opts.limits ?? SCAN_LIMITS).maxDepth}${bound}). Clone it under one of them, add its parent folder to search_roots:, or map it under paths: (paths: { ${ref.split("/").pop()}: /path/to/clone }) in ${this.opts.configFile}`,
    );
  }
}

function hitOf(key: string, paths: readonly string[]): RepoHit {
  const [first, ...others] = paths;
  const warnings =
    others.length > 0
      ? [`several clones of ${key}: using ${first} (also ${others.join(", ")})`]
      : [];
  return { path: first as string, key, warnings };
}

function ambiguous(ref: string, keys: readonly string[]): ResolveError {
  return new ResolveError(
    "ambiguous",
    `repo:${ref} is ambiguous: it names ${keys.join(", ")}; write the full key, e.g. {{repo:${keys[0]}}} or cartographer resolve repo:${keys[0]}`,
    keys,
  );
}

type Verified =
  | { kind: "found"; value: RepoHit }
  | { kind: "ambiguous"; keys: string[] }
  | { kind: "stale" };

/** A cache match whose every path still is a clone of its key; anything less is stale. */
async function verified(cache: RepoCache, match: KeyMatch): Promise<Verified> {
  if (match.kind === "none") return { kind: "stale" };
  const keys = match.kind === "found" ? [match.key] : match.keys;
  for (const key of keys) {
    for (const dir of cache.repos[key] ?? []) {
      if ((await originKeyOf(dir)) !== key) return { kind: "stale" };
    }
  }
  if (match.kind === "ambiguous") return { kind: "ambiguous", keys: match.keys };
  return { kind: "found", value: hitOf(match.key, cache.repos[match.key] ?? []) };
}
