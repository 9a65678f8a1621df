/**
 * How the two rankers of a keyword search share the process's two threads (docs/decisions.md "On
 * 20,000+ rows a search shares its work"): the rank thread (rank-thread.ts) takes one part of the
 * work while the main thread does the rest, and the answer is the same as doing it all here in
 * order (top-ranked.ts).
 *
 * - Every one of 2+ terms must match: both rankers run anyway (the trigram ranker seldom fills
 *   the page), so the trigram ranker goes to the rank thread and the word ranker runs here; the
 *   query takes as long as the slower one (2-word queries on 100,000 concepts: 30–45% faster).
 * - Otherwise (one term, or any term) the word ranker is usually skipped by its bound: the rank
 *   thread counts the bound's phrases (~0.2 ms for a common word on 100,000 concepts) while the
 *   trigram ranker runs here, and the bound is ready when it is needed. Sending the trigram
 *   ranker away instead made single words 0.2–0.5 ms slower (the main thread waited for it).
 *
 * Null (all here, in order) on an index under the thread's row threshold, inside a transaction
 * (the other connection could not see its rows), or while the thread is not up.
 */

import type { SqlFragment } from "../sql-fragment.js";
import type { StatementCache } from "../statement-cache.js";
import type { OffThread } from "./rank-thread.js";
import { type Ranker, rankerQuery, rankerTop, type Scored } from "./ranker-query.js";
import { boundFromCounts, phraseCountsQuery, rowCountBound } from "./score-bound.js";

export interface Split {
  /** The first ranker's rows (collected from the rank thread when they were computed there). */
  first(): Scored[];
  /** The second ranker's rows, when it ran while the first was away. */
  second?: Scored[];
  /** The second ranker's bound from the rank thread's counts; null when the thread failed. */
  bound?: () => number | null;
}

export function splitRankers(
  cache: StatementCache,
  rankers: Ranker[],
  filters: SqlFragment[],
  window: number,
  offThread: OffThread,
): Split | null {
  const [first, second] = rankers;
  if (!first || !second || rankers.length !== 2 || cache.inTransaction) return null;
  if (rowCountBound(cache, first.table) < offThread.minRows) return null;
  if (second.allTerms && second.phrases.length > 1) {
    const query = rankerQuery(first, filters, window);
    const pending = offThread.start(query.sql, query.params);
    if (pending === null) return null;
    const rows = rankerTop(cache, second, filters, window);
    return {
      first: () =>
        (pending.result() as Scored[] | null) ?? rankerTop(cache, first, filters, window),
      second: rows,
    };
  }
  const counts = phraseCountsQuery(second.table, second.phrases);
  const pending = offThread.start(counts.sql, counts.params);
  if (pending === null) return null;
  return {
    first: () => rankerTop(cache, first, filters, window),
    bound: () => {
      const rows = pending.result() as Array<{ i: number; n: number }> | null;
      if (rows === null || rows.length !== second.phrases.length) return null;
      const hits = [...rows].sort((a, b) => a.i - b.i).map((r) => r.n);
      return boundFromCounts(rowCountBound(cache, second.table), hits);
    },
  };
}
