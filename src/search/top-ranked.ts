/**
 * The first `limit` word/trigram hits by (score desc, id), computed from each ranker's own top
 * rows instead of every match (issue 16). On 100,000 concepts a common word matches ~5,000 of
 * them: ranking them all through a UNION ALL, a GROUP BY and a sort by id cost 14–17 ms of CPU
 * per query, each ranker's `ORDER BY score LIMIT` alone ~4 ms.
 *
 * Exact, not approximate: a concept's score is the larger of its two rankers' scores, so the
 * first `limit` by that score are among the rows of one ranker or the other that score at least
 * as high as that ranker's limit-th row (all of them: FTS5 cuts a run of equal scores anywhere,
 * and the id tie-break is decided here). A run of equal scores longer than the window answers
 * null and the caller runs the full ranking. Filters (visibility, scope) stay in each ranker's WHERE before its LIMIT, so
 * LIMIT counts visible rows only (D118).
 */
import type { OffThread } from "./rank-thread.js";
import { bm25Bound, type FtsTable, rowCountBound } from "./score-bound.js";
import { andAll, placeholders, type SqlFragment, TRUE_SQL } from "./sql-fragment.js";
import type { StatementCache } from "./statement-cache.js";

export interface Ranker {
  /** The FTS5 table and its score expression (-bm25 with the table's weights; larger is better). */
  table: FtsTable;
  rank: string;
  match: string;
  /** Each phrase of `match` alone (bm25's per-phrase document counts, score-bound.ts). */
  phrases: string[];
  /** Whether `match` joins its phrases with AND (else OR). */
  allTerms: boolean;
}

/** Rows fetched beyond `limit` from each ranker, to hold a run of scores equal to the cut. */
const TIE_WINDOW = 32;

interface Scored {
  rowid: number;
  score: number;
}

/**
 * Rowids and scores of the first `limit` hits of the rankers, best first (ties by id), or null
 * when a run of equal scores at a ranker's cut outgrows its window.
 */
export function topRanked(
  cache: StatementCache,
  rankers: Ranker[],
  filters: SqlFragment[],
  limit: number,
  offThread?: OffThread,
): Scored[] | null {
  const best = new Map<number, number>();
  const window = limit + TIE_WINDOW;
  const split = offThread && splitRankers(cache, rankers, filters, window, offThread);
  for (const [i, ranker] of rankers.entries()) {
    let rows: Scored[];
    if (split) rows = i === 0 ? split.first() : split.second;
    else {
      if (cannotReachPage(cache, ranker, best, limit)) continue;
      rows = rankerTop(cache, ranker, filters, window);
    }
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
  return bm25Bound(cache, ranker.table, ranker.phrases, (partial) => partial >= cut) < cut;
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

/** One ranker's first `n` rows by score. */
function rankerTop(
  cache: StatementCache,
  ranker: Ranker,
  filters: SqlFragment[],
  n: number,
): Scored[] {
  const { sql, params } = rankerQuery(ranker, filters, n);
  return cache.get(sql).all(...params) as Scored[];
}

/** The query of rankerTop; joined to concepts only when a filter needs it. */
function rankerQuery(ranker: Ranker, filters: SqlFragment[], n: number): SqlFragment {
  const { table, rank, match } = ranker;
  if (filters.every((f) => f === TRUE_SQL)) {
    return {
      sql: `SELECT rowid, ${rank} AS score FROM ${table} WHERE ${table} MATCH ? ORDER BY score DESC LIMIT ?`,
      params: [match, n],
    };
  }
  const where = andAll(filters);
  return {
    sql:
      `SELECT c.rowid AS rowid, ${rank} AS score FROM ${table} JOIN concepts c ON c.rowid = ${table}.rowid ` +
      `WHERE ${table} MATCH ? AND ${where.sql} ORDER BY score DESC LIMIT ?`,
    params: [match, ...where.params, n],
  };
}

/**
 * The first ranker started on the rank thread (rank-thread.ts) and the second run here
 * meanwhile, when both will run anyway: every one of two or more terms must match, so the
 * trigram ranker seldom fills the page and the word ranker is seldom skipped. A single term or
 * any-term query ranks here, first ranker first: its word ranker is usually skipped by its bound
 * (~0.2 ms), less than handing the trigram ranker over costs (measured over stdio: single words
 * were 0.2-0.5 ms slower split). Null also when the index is small or the thread is not up.
 */
function splitRankers(
  cache: StatementCache,
  rankers: Ranker[],
  filters: SqlFragment[],
  window: number,
  offThread: OffThread,
): { first(): Scored[]; second: Scored[] } | null {
  const [first, second] = rankers;
  if (!first || !second || rankers.length !== 2 || cache.inTransaction) return null;
  if (!second.allTerms || second.phrases.length < 2) return null;
  if (rowCountBound(cache, first.table) < offThread.minRows) return null;
  const query = rankerQuery(first, filters, window);
  const pending = offThread.start(query.sql, query.params);
  if (pending === null) return null;
  const rows = rankerTop(cache, second, filters, window);
  return {
    first: () => (pending.result() as Scored[] | null) ?? rankerTop(cache, first, filters, window),
    second: rows,
  };
}
