/**
 * The trigram ranker's first rows computed from a TrigramMemory instead of FTS5, with the scores
 * FTS5's bm25 gives, bit for bit (bm25-memory.ts; docs/decisions.md "The trigram ranker in
 * memory").
 */
import {
  type MemoryRows,
  type PhraseHits,
  scoreInMemory,
  type TableTotals,
  type VisibleRows,
} from "./bm25-memory.js";
import { foldedPhrase } from "./trigram-memory.js";

/** What rankInMemory needs of a memory (a TrigramMemory, or one with changed rows beside it). */
export interface TrigramSource extends MemoryRows {
  hits(phrase: Uint8Array, weights: readonly number[]): PhraseHits;
}

export interface TrigramQuery {
  /** The terms as written (each one phrase), in the MATCH expression's order. */
  terms: readonly string[];
  /** AND (every phrase) or OR (any phrase). */
  allTerms: boolean;
  /** bm25's column weights (id, title, tags). */
  weights: readonly number[];
}

/**
 * The first `n` rows by score (of those `visible` keeps, when given), best first (equal scores in
 * any order, as FTS5's LIMIT leaves them), or null when a term is not all ASCII or the filters
 * keep too few (the caller asks FTS5). `ln` is SQLite's ln().
 */
export function rankInMemory(
  memory: TrigramSource,
  query: TrigramQuery,
  totals: TableTotals,
  ln: (x: number) => number,
  n: number,
  visible?: VisibleRows,
): Array<{ rowid: number; score: number }> | null {
  const phrases: Uint8Array[] = [];
  for (const term of query.terms) {
    const phrase = foldedPhrase(term);
    if (phrase === null || phrase.length < 3) return null;
    phrases.push(phrase);
  }
  const hits = phrases.map((p) => memory.hits(p, query.weights));
  return scoreInMemory(memory, hits, query.allTerms, totals, ln, n, visible);
}
