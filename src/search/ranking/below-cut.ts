/**
 * Whether no row of a ranker can score as high as the page's cut, proved while counting as few
 * of its matches as that takes (docs/decisions.md "The bound of a common word counts only the
 * matches it needs").
 *
 * The bm25 bound (score-bound.ts) needs each phrase's document count, and a smaller count only
 * raises it: counting a common word's matches up to the number that already brings its share
 * under the cut proves the same skip as counting them all. On 100,000 concepts `the` counts
 * ~1,100 of its 100,000 matches (0.1 ms instead of 15 ms). A prefix phrase (`"back"*`) merges the
 * doclists of every token it starts before its first row (2.3 ms for `back`, however few rows
 * are asked for); one completion's rows are a subset of the prefix's, so a few completions are
 * counted first, each alone. When capped counts do not prove it, phrases are counted whole, as
 * before: the skip is never taken on a guess.
 */

import { completions } from "../prefix-terms.js";
import type { StatementCache } from "../statement-cache.js";
import {
  bm25Bound,
  boundFromCounts,
  type FtsTable,
  hitsForShareBelow,
  rowCountBound,
} from "./score-bound.js";

/** Completions of a prefix phrase tried (each one seek and one capped count) before the prefix. */
const MAX_COMPLETIONS = 8;
/** A plain word-prefix phrase as search-query.ts writes it: `"back"*`. */
const PREFIX_PHRASE = /^"([a-z0-9]+)"\*$/;

export function cannotReach(
  cache: StatementCache,
  table: FtsTable,
  phrases: readonly string[],
  cut: number,
): boolean {
  const rows = rowCountBound(cache, table);
  const cap = hitsForShareBelow(rows, cut / phrases.length);
  if (cap === null) return bm25Bound(cache, table, phrases, (partial) => partial >= cut) < cut;
  // counts[i] is phrase i's exact count when below cap, else a count at most its true one.
  const counts: number[] = [];
  // The phrases counted exactly (rare ones) alone reaching the cut end it: no skip.
  const exactOnly = () =>
    boundFromCounts(
      rows,
      counts.map((n) => (n < cap ? n : 0)),
    );
  for (const phrase of phrases) {
    counts.push(atLeast(cache, table, phrase, cap));
    if (exactOnly() >= cut) return false;
  }
  if (boundFromCounts(rows, counts) < cut) return true;
  // Whole counts where the capped ones were not exact, stopping once the bound reaches the cut.
  const whole: number[] = [];
  for (const [i, phrase] of phrases.entries()) {
    const known = counts[i] as number;
    whole.push(known < cap ? known : count(cache, table, phrase));
    if (boundFromCounts(rows, whole) >= cut) return false;
  }
  return true;
}

/** At least `cap` when the phrase matches `cap` rows or more, else exactly its count. */
function atLeast(cache: StatementCache, table: FtsTable, phrase: string, cap: number): number {
  const prefix = table === "concepts_fts" ? PREFIX_PHRASE.exec(phrase) : null;
  if (prefix) {
    for (const token of completions(cache, prefix[1] as string, MAX_COMPLETIONS)) {
      if (capped(cache, table, `"${token}"`, cap) >= cap) return cap;
    }
  }
  return capped(cache, table, phrase, cap);
}

function capped(cache: StatementCache, table: FtsTable, phrase: string, cap: number): number {
  return cache
    .get(`SELECT count(*) FROM (SELECT 1 FROM ${table} WHERE ${table} MATCH ? LIMIT ?)`)
    .pluck()
    .get(phrase, cap) as number;
}

function count(cache: StatementCache, table: FtsTable, phrase: string): number {
  return cache
    .get(`SELECT count(*) FROM ${table} WHERE ${table} MATCH ?`)
    .pluck()
    .get(phrase) as number;
}
