/**
 * The word index's postings held in memory (word-arrays.ts builds them): for each token, the
 * rows holding it and its column-weighted frequency in each, so the word ranker's matches are
 * found and scored without FTS5, with FTS5's scores (bm25-memory.ts; docs/decisions.md "The word
 * ranker in memory"). FTS5's bm25 counts every row of each phrase for its IDF on every query: a
 * word in half of 100,000 concepts cost ~2.4 ms a search before one row was scored; here that
 * count is stored.
 *
 * A phrase is answered when it is one ASCII token (`"backup"`) or a prefix of at most
 * MAX_PREFIX_TOKENS tokens (`"rest"*`); any other (several tokens, a character outside ASCII)
 * answers null and the ranker stays in FTS5.
 */
import {
  HeldRows,
  type MemoryRows,
  type PhraseHits,
  scoreInMemory,
  type TableTotals,
  type VisibleRows,
} from "./bm25-memory.js";
import { MAX_PREFIX_TOKENS, MAX_TOKEN_BYTES, type WordArrays } from "./word-arrays.js";

const ONE_TOKEN = /^[a-z0-9]+$/;
const NO_HITS: PhraseHits = { rows: new Int32Array(0), freq: new Float64Array(0) };
/** A term string's cost beyond its characters (V8 header, Map entry), for `bytes`. */
const TERM_OVERHEAD_BYTES = 48;

export interface WordQuery {
  /** Each phrase in the MATCH expression's order: its folded text and whether it is a prefix. */
  phrases: ReadonlyArray<{ text: string; prefix: boolean }>;
  /** AND (every phrase) or OR (any phrase). */
  allTerms: boolean;
  /** bm25's column weights (id, title, tags, body): the memory answers only its own. */
  weights: readonly number[];
}

export class WordMemory extends HeldRows {
  private readonly index: Map<string, number>;
  private readonly termBytes: number;

  constructor(private readonly a: WordArrays) {
    super(a.rowids, a.sizes);
    this.index = new Map(a.terms.map((term, i) => [term, i]));
    this.termBytes = a.terms.reduce((sum, t) => sum + t.length + TERM_OVERHEAD_BYTES, 0);
  }

  /** Bytes held: the typed arrays, and an estimate for the terms and their Map. */
  get bytes(): number {
    const { offsets, counts, postings, rowids, sizes } = this.a;
    const arrays = [offsets, counts, postings, rowids, sizes];
    return this.termBytes + arrays.reduce((sum, x) => sum + x.byteLength, 0);
  }

  get weights(): readonly number[] {
    return this.a.weights;
  }

  /** See rankWords. */
  rank(
    query: WordQuery,
    totals: TableTotals,
    ln: (x: number) => number,
    n: number,
    visible?: VisibleRows,
  ) {
    return rankWords(this, query, totals, ln, n, visible);
  }

  /**
   * Each phrase's row count (bm25's n_i), or null when one is not a single token or a prefix of
   * one token only (a union would have to be merged to count it).
   */
  counts(phrases: WordQuery["phrases"]): number[] | null {
    const out: number[] = [];
    for (const { text, prefix } of phrases) {
      if (!ONE_TOKEN.test(text)) return null;
      const term = prefix ? this.onlyCompletion(text) : this.index.get(text);
      if (term === null) return null;
      out.push(term === undefined ? 0 : (this.a.counts[term] as number));
    }
    return out;
  }

  /**
   * The token to match `text` by exactly instead of as a prefix, with the same rows and scores:
   * itself when no token starts with it, the one token that does when only one does; undefined
   * when two or more do, or it is not one plain token (prefix-terms.ts asks the same of FTS5).
   */
  exactToken(text: string): string | undefined {
    return exactTokenOf(text, this.completions(text, 2));
  }

  /** Up to `max` tokens starting with `text`, ascending. */
  completions(text: string, max: number): string[] {
    const { terms } = this.a;
    const out: string[] = [];
    for (let i = lowerBound(terms, text); i < terms.length && out.length < max; i++) {
      if (!(terms[i] as string).startsWith(text)) break;
      out.push(terms[i] as string);
    }
    return out;
  }

  /** The one token starting with `text`: its number; undefined when none does, null when several. */
  private onlyCompletion(text: string): number | undefined | null {
    const { terms } = this.a;
    const first = lowerBound(terms, text);
    if (first >= terms.length || !(terms[first] as string).startsWith(text)) return undefined;
    const next = terms[first + 1];
    return next?.startsWith(text) ? null : first;
  }

  /** The rows holding token `text` (or, for a prefix, any token starting with it). */
  hits(text: string, prefix: boolean): PhraseHits | null {
    if (!ONE_TOKEN.test(text) || text.length >= MAX_TOKEN_BYTES) return null;
    if (!prefix) {
      const term = this.index.get(text);
      return term === undefined ? NO_HITS : this.decode(term);
    }
    const { terms } = this.a;
    const first = lowerBound(terms, text);
    let end = first;
    while (end < terms.length && (terms[end] as string).startsWith(text)) {
      end++;
      if (end - first > MAX_PREFIX_TOKENS) return null;
    }
    let hits = NO_HITS;
    for (let term = first; term < end; term++) hits = merged(hits, this.decode(term));
    return hits;
  }

  private decode(term: number): PhraseHits {
    const { offsets, counts, postings } = this.a;
    const count = counts[term] as number;
    const rows = new Int32Array(count);
    const freq = new Float64Array(count);
    let at = offsets[term] as number;
    let row = -1;
    for (let i = 0; i < count; i++) {
      let delta = 0;
      let shift = 0;
      let byte: number;
      do {
        byte = postings[at++] as number;
        delta += (byte & 0x7f) * 2 ** shift;
        shift += 7;
      } while (byte & 0x80);
      let f = 0;
      shift = 0;
      do {
        byte = postings[at++] as number;
        f += (byte & 0x7f) * 2 ** shift;
        shift += 7;
      } while (byte & 0x80);
      row += delta;
      rows[i] = row;
      freq[i] = f;
    }
    return { rows, freq };
  }
}

/** What rankWords needs of a memory: its weights, each phrase's hits, each row's rowid and size. */
export interface WordSource extends MemoryRows {
  readonly weights: readonly number[];
  hits(text: string, prefix: boolean): PhraseHits | null;
}

/**
 * The word ranker's first `n` rows (of those `visible` keeps, when given), best first, with
 * FTS5's scores; null when a phrase is not one the memory answers, the weights are not its own
 * or the filters keep too few (the caller asks FTS5).
 */
export function rankWords(
  source: WordSource,
  query: WordQuery,
  totals: TableTotals,
  ln: (x: number) => number,
  n: number,
  visible?: VisibleRows,
) {
  const { weights } = source;
  if (query.weights.length !== weights.length) return null;
  if (query.weights.some((w, i) => w !== weights[i])) return null;
  const hits: PhraseHits[] = [];
  for (const phrase of query.phrases) {
    const found = source.hits(phrase.text, phrase.prefix);
    if (found === null) return null;
    hits.push(found);
  }
  if (hits.length === 0) return null;
  return scoreInMemory(source, hits, query.allTerms, totals, ln, n, visible);
}

/**
 * The exact token for `text` given the tokens starting with it (at least the first two): itself
 * when there are none, the one when there is one, undefined otherwise or for a text that is not
 * one plain token.
 */
export function exactTokenOf(text: string, completions: readonly string[]): string | undefined {
  if (!ONE_TOKEN.test(text) || completions.length > 1) return undefined;
  return completions[0] ?? text;
}

/** The first index of the ascending `terms` not below `text`. */
function lowerBound(terms: readonly string[], text: string): number {
  let lo = 0;
  let hi = terms.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((terms[mid] as string) < text) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The rows of either, ascending; a row in both has the sum of its frequencies. */
function merged(a: PhraseHits, b: PhraseHits): PhraseHits {
  if (a.rows.length === 0) return b;
  const rows = new Int32Array(a.rows.length + b.rows.length);
  const freq = new Float64Array(rows.length);
  let n = 0;
  let i = 0;
  let j = 0;
  while (i < a.rows.length || j < b.rows.length) {
    const x = i < a.rows.length ? (a.rows[i] as number) : Number.POSITIVE_INFINITY;
    const y = j < b.rows.length ? (b.rows[j] as number) : Number.POSITIVE_INFINITY;
    rows[n] = Math.min(x, y);
    freq[n] = (x <= y ? (a.freq[i++] as number) : 0) + (y <= x ? (b.freq[j++] as number) : 0);
    n++;
  }
  return { rows: rows.subarray(0, n), freq: freq.subarray(0, n) };
}
