/**
 * The first `limit` word/trigram hits by (score desc, id), computed from each ranker's own top
 * rows instead of every match (docs/decisions.md "Search ranks from each ranker's own top rows").
 * On 100,000 concepts a common word matches ~5,000 of them: ranking them all through a UNION ALL, a
 * GROUP BY and a sort by id cost 14–17 ms of CPU per query, each ranker's `ORDER BY score LIMIT`
 * alone ~4 ms.
 *
 * Exact, not approximate: a concept's score is the larger of its two rankers' scores, so the
 * first `limit` by that score are among the rows of one ranker or the other that score at least
 * as high as that ranker's limit-th row (all of them: FTS5 cuts a run of equal scores anywhere,
 * and the id tie-break is decided here). A run of equal scores longer than the window answers
 * null and the caller runs the full ranking. Filters (visibility, scope) stay in each ranker's WHERE before its LIMIT, so
 * LIMIT counts visible rows only (D118).
 */

import { placeholders, type SqlFragment } from "../sql-fragment.js";
import type { StatementCache } from "../statement-cache.js";
import { cannotReach } from "./below-cut.js";
import { type Ranker, rankerTop, type Scored } from "./ranker-query.js";
import { boundFromCounts, rowCountBound } from "./score-bound.js";

export type { Ranker } from "./ranker-query.js";

/** Rows fetched beyond `limit` from each ranker, to hold a run of scores equal to the cut. */
const TIE_WINDOW = 32;

/**
 * Rowids and scores of the first `limit` hits of the rankers, best first (ties by id), or null
 * when a run of equal scores at a ranker's cut outgrows its window. The rankers run in order on
 * this thread, so a later one is skipped when the earlier ones' rows already fill the page above
 * anything it could score (docs/decisions.md "All-terms queries rank in order on one thread").
 */
export function topRanked(
  cache: StatementCache,
  rankers: Ranker[],
  filters: SqlFragment[],
  limit: number,
): Scored[] | null {
  const best = new Map<number, number>();
  const window = limit + TIE_WINDOW;
  for (const ranker of rankers) {
    if (cannotReachPage(cache, ranker, best, limit)) continue;
    const rows = rankerTop(cache, ranker, filters, window);
    // Every row scoring as high as the limit-th: the cut then never splits a run of equal
    // scores (titles of one length often score alike), unless the run outgrows the window.
    const cut = rows[limit - 1]?.score ?? Number.NEGATIVE_INFINITY;
    if (rows.length === window && rows[window - 1]?.score === cut) return null;
    for (const { rowid, score } of rows.filter((r) => r.score >= cut)) {
      const seen = best.get(rowid);
      if (seen === undefined || score > seen) best.set(rowid, score);
    }
  }
  if (best.size === 0) return [];
  const ranked = [...best].map(([rowid, score]) => ({ rowid, score }));
  ranked.sort((a, b) => b.score - a.score);
  const idOf = tiedIds(cache, ranked, limit);
  if (idOf.size > 0) {
    ranked.sort((a, b) => {
      if (a.score !== b.score) return b.score - a.score;
      const x = idOf.get(a.rowid) ?? "";
      const y = idOf.get(b.rowid) ?? "";
      return x < y ? -1 : x > y ? 1 : 0;
    });
  }
  return ranked.slice(0, limit);
}

/**
 * True when no row of `ranker` can score as high as the `limit`-th best row found so far: then
 * none of its rows changes the page (a row's score is the larger of its rankers' scores, and the
 * rows earlier rankers scored at or above that cut are all in `best`). On 100,000 concepts the
 * trigram ranker (id, title, tags; high IDF) usually fills the page with scores above any the
 * word ranker could give a common word, whose scoring of ~5,000 matches is most of a query.
 */
function cannotReachPage(
  cache: StatementCache,
  ranker: Ranker,
  best: ReadonlyMap<number, number>,
  limit: number,
): boolean {
  // Inside a build's held transaction FTS5's row count may be ahead of its stored record.
  if (best.size < limit || cache.inTransaction) return false;
  const cut = [...best.values()].sort((a, b) => b - a)[limit - 1] as number;
  if (!Number.isFinite(cut)) return false;
  // Counts from memory (exact, or at most the true ones) give the bound without counting a row.
  const counts = ranker.counts?.();
  if (counts) return boundFromCounts(rowCountBound(cache, ranker.table), counts) < cut;
  return cannotReach(cache, ranker.table, ranker.phrases, cut);
}

/**
 * The ids of the rows in runs of equal scores that reach into the first `limit` (`ranked` is
 * sorted by score): the id decides only between equal scores, so the other rows need none.
 * Fetching every candidate's id (up to 2 × (limit + TIE_WINDOW) rows) was ~0.1 ms per query.
 */
function tiedIds(cache: StatementCache, ranked: Scored[], limit: number): Map<number, string> {
  const tied: number[] = [];
  for (let i = 0; i < ranked.length && i < limit; ) {
    let end = i + 1;
    while (end < ranked.length && ranked[end]?.score === ranked[i]?.score) end++;
    if (end - i > 1) for (let k = i; k < end; k++) tied.push((ranked[k] as Scored).rowid);
    i = end;
  }
  if (tied.length === 0) return new Map();
  const rows = cache
    .get(`SELECT rowid, id FROM concepts WHERE rowid IN (${placeholders(tied.length)})`)
    .all(...tied) as Array<{ rowid: number; id: string }>;
  return new Map(rows.map((r) => [r.rowid, r.id]));
}
