/**
 * The change feed: commits newest first, filtered by map, tool, principal and time, each as the
 * viewer may see it (commit-view.ts), paged by a cursor that counts the raw commits read. A page
 * reads git in batches and stops at its size, at MAX_SCANNED raw commits or at its time budget,
 * whichever comes first (docs/decisions.md "Console: bounded git reads"); the cursor then resumes
 * where the scan stopped, so a sparse filter pages on instead of scanning the whole history.
 */
import { KbError } from "../../common/errors.js";
import { isValidId } from "../../kb/core/ids.js";
import { idsOfCommit, type ViewedCommit, type ViewScope, viewCommit } from "./commit-view.js";
import { readLog } from "./git-reads.js";

export const PAGE_SIZE = 50;
/** Raw commits one page reads at most. */
export const MAX_SCANNED = 2_000;
/** A page stops reading git after this long (it still answers what it found). */
export const SCAN_BUDGET_MS = 60;
const BATCH = 200;

export interface FeedFilter {
  /** A map (or journal) name: commits touching `data/<map>/`. */
  map?: string;
  /** A tool name: commits whose subject is `<tool>: …`. */
  tool?: string;
  /** A principal id: commits whose audit completion names it. */
  principal?: string;
  since?: Date;
  until?: Date;
  /** KB-root-relative files (a concept's history): commits touching one of them. */
  paths?: readonly string[];
}

export interface FeedQuery {
  filter: FeedFilter;
  /** Raw commits already read by the pages before (0: the newest). */
  cursor: number;
  /** Default PAGE_SIZE. */
  size?: number;
  /** The principals of those of `shas` whose call the audit holds (audit-links.ts). */
  principalsOf?: (shas: readonly string[]) => Promise<ReadonlyMap<string, string>>;
  now?: () => number;
}

export interface FeedPage {
  commits: ViewedCommit[];
  /** Cursor of the next page; null when history ends within this page. */
  next: number | null;
  /** Raw commits read by this page. */
  scanned: number;
  /** True when the page stopped at MAX_SCANNED or the time budget, not at its size. */
  partial: boolean;
}

/** Throws `invalid_argument` naming the filter field that is malformed. */
export function checkFilter(f: FeedFilter): void {
  if (f.map !== undefined && (!isValidId(f.map) || f.map.includes("/")))
    throw new KbError("invalid_argument", `map "${f.map}" is not a map name (a-z, 0-9, . _ -)`);
  if (f.tool !== undefined && !/^[a-z][a-z0-9_]{0,63}$/.test(f.tool))
    throw new KbError("invalid_argument", `tool "${f.tool}" is not a tool name (a-z, 0-9, _)`);
  if (f.since && f.until && f.since.getTime() > f.until.getTime())
    throw new KbError("invalid_argument", "since is after until: swap them");
}

/** One page of the feed for one viewer. */
export async function readFeed(root: string, scope: ViewScope, q: FeedQuery): Promise<FeedPage> {
  checkFilter(q.filter);
  const size = q.size ?? PAGE_SIZE;
  const now = q.now ?? (() => performance.now());
  const started = now();
  const { map, tool, principal, since, until } = q.filter;
  const paths = map !== undefined ? [`data/${map}/`] : q.filter.paths;
  const out: ViewedCommit[] = [];
  let cursor = q.cursor;
  let scanned = 0;
  const lo = since?.getTime() ?? -Infinity;
  const hi = until?.getTime() ?? Infinity;
  for (;;) {
    // The first batch is one page: a page of visible commits never reads (and diffs) older ones.
    const count = Math.min(scanned === 0 ? size : BATCH, MAX_SCANNED - scanned);
    const batch = await readLog(root, {
      skip: cursor,
      count,
      ...(paths ? { paths } : {}),
      ...(tool !== undefined ? { tool } : {}),
      ...(since ? { since } : {}),
      ...(until ? { until } : {}),
    });
    const visible = scope.all
      ? new Set<string>()
      : await scope.visibleIds(batch.flatMap(idsOfCommit));
    const principals =
      principal !== undefined && q.principalsOf
        ? await q.principalsOf(batch.map((c) => c.sha))
        : new Map<string, string>();
    for (const raw of batch) {
      cursor++;
      scanned++;
      if (tool !== undefined && !raw.subject.startsWith(`${tool}: `)) continue;
      const t = Date.parse(raw.time);
      if (!(t >= lo && t <= hi)) continue;
      if (principal !== undefined && principals.get(raw.sha) !== principal) continue;
      const seen = viewCommit(raw, scope.all, visible);
      if (seen) out.push(seen);
      if (out.length === size) return { commits: out, next: cursor, scanned, partial: false };
    }
    if (batch.length < count) return { commits: out, next: null, scanned, partial: false };
    if (scanned >= MAX_SCANNED || now() - started > SCAN_BUDGET_MS)
      return { commits: out, next: cursor, scanned, partial: true };
  }
}
