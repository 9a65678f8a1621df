/**
 * How the two rankers of a keyword search share the process's two threads (docs/decisions.md "On
 * 20,000+ rows a search shares its work"): the rank thread (rank-thread.ts) takes one part of the
 * work while the main thread does the rest, and the answer is the same as doing it all here in
 * order (top-ranked.ts).
 *
 * - Every one of 2+ terms must match: both rankers run anyway (the trigram ranker seldom fills
 *   the page), so the trigram ranker goes to the rank thread and the word ranker runs here; the
 *   query takes as long as the slower one (2-word queries on 100,000 concepts: 30–45% faster).
 * - Otherwise (one term, or any term) the word ranker is usually skipped by its bound, which
 *   counts only the matches it needs (below-cut.ts, ~0.1–0.5 ms for a common word on 100,000
 *   concepts) once the trigram ranker has set the cut: all of it runs here. The rank thread
 *   used to count whole doclists meanwhile (15 ms for `the`, the main thread waiting on it);
 *   sending the trigram ranker away instead made single words 0.2–0.5 ms slower.
 *
 * Null (all here, in order) for those, on an index under the thread's row threshold, inside a
 * transaction (the other connection could not see its rows), or while the thread is not up.
 * Counting the trigram matches first, to rank in order when they could fill the page (so a word
 * ranker its bound skips is not ranked at all), was tried and dropped: the count costs nearly
 * what the trigram ranking does, on the main thread, for the queries that split (docs/decisions.md
 * "Not kept: ranking all-terms queries in order").
 */

import type { SqlFragment } from "../sql-fragment.js";
import type { StatementCache } from "../statement-cache.js";
import type { OffThread } from "./rank-thread.js";
import { type Ranker, rankerQuery, rankerTop, type Scored } from "./ranker-query.js";
import { rowCountBound } from "./score-bound.js";

export interface Split {
  /** The first ranker's rows (collected from the rank thread when they were computed there). */
  first(): Scored[];
  /** The second ranker's rows, ranked here while the first was away. */
  second: Scored[];
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
  if (!second.allTerms || second.phrases.length < 2) return null;
  const query = rankerQuery(first, filters, window);
  const pending = offThread.start(query.sql, query.params);
  if (pending === null) return null;
  const rows = rankerTop(cache, second, filters, window);
  return {
    first: () => (pending.result() as Scored[] | null) ?? rankerTop(cache, first, filters, window),
    second: rows,
  };
}
