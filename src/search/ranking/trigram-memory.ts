/**
 * The id, title and tags of every concept held in memory with a trigram → rows table, so the
 * trigram ranker's matches and their frequencies are found without FTS5 (trigram-rank.ts scores
 * them exactly as FTS5's bm25 would; docs/decisions.md "The trigram ranker in memory").
 *
 * Only for pure-ASCII fields: there the trigram tokenizer's folding is A–Z → a–z, a phrase matches
 * exactly where its folded text occurs as a substring of one field (overlapping occurrences each
 * count), and a field of L characters holds max(0, L − 2) tokens. Any other character makes the
 * build answer null and the ranker stays in FTS5, whose folding is not reproduced here.
 *
 * Pure: built from rows, then only read. Every array is transferable (a worker builds it).
 */

import { HeldRows, intersect, type PhraseHits, sortedIndexOf } from "./bm25-memory.js";

/** The arrays of a TrigramMemory (what a build worker sends back). */
export interface TrigramArrays {
  /** Every field's folded bytes, one after another (row by row: id, title, tags). */
  text: Uint8Array;
  /** Field k of row i spans text[starts[3i + k], starts[3i + k + 1]). */
  starts: Int32Array;
  /** The concept rowid of each row. */
  rowids: Int32Array;
  /** Tokens of each row (bm25's |D|): Σ max(0, field length − 2). */
  sizes: Int32Array;
  /**
   * The trigrams present, ascending: trigram keys[i] is held by the rows
   * postings[offsets[i], offsets[i + 1]), in row order.
   */
  keys: Int32Array;
  offsets: Int32Array;
  postings: Int32Array;
}

/** The rows a memory is built from, in rowid order (TrigramRow). */
export const TRIGRAM_ROWS_SQL = "SELECT rowid, id, title, tags FROM concepts ORDER BY rowid";
/** The same rows of the concepts whose rowids are given (one JSON array parameter). */
export const TRIGRAM_ROWS_OF_SQL =
  "SELECT rowid, id, title, tags FROM concepts WHERE rowid IN (SELECT value FROM json_each(?)) ORDER BY rowid";

/** A row as read from `concepts`: rowid, id, title, tags. */
export type TrigramRow = readonly [number, string, string | null, string];

const FIELDS = 3;
/** What a row holds besides its fields' bytes: three field starts, its rowid and size. */
const ROW_BYTES = 5 * 4;
/** Trigram keys: three 7-bit characters. */
const KEYS = 1 << 21;
const ASCII_MAX = 0x7f;

/**
 * The arrays for `rows`, or null when a field holds a character outside ASCII or the fields
 * (and 20 bytes a row) add up to more than `maxTextBytes` (memory: ~3.9 bytes per field byte). One pass over the
 * rows, which may be a statement's iterator: it stops at the first field that declines, and
 * never holds more than the fields' bytes and three numbers a row.
 */
export function buildTrigramArrays(
  rows: Iterable<TrigramRow>,
  maxTextBytes: number,
  opts: { indexed?: boolean } = {},
): TrigramArrays | null {
  let text = new Uint8Array(1 << 16);
  let starts = new Int32Array(1 << 12);
  let rowids = new Int32Array(1 << 10);
  let sizes = new Int32Array(1 << 10);
  let n = 0;
  let length = 0;
  for (const row of rows) {
    if (n === rowids.length) {
      rowids = grown(rowids, n * 2);
      sizes = grown(sizes, n * 2);
    }
    if (n * FIELDS + FIELDS >= starts.length) starts = grown(starts, starts.length * 2);
    rowids[n] = row[0];
    let size = 0;
    for (let k = 0; k < FIELDS; k++) {
      const field = fieldOf(row, k);
      // Each row's numbers (field starts, rowid, size) count against the bound too.
      if (length + field.length + (n + 1) * ROW_BYTES > maxTextBytes) return null;
      if (length + field.length > text.length)
        text = grown(
          text,
          Math.min(Math.max(text.length * 2, length + field.length), maxTextBytes),
        );
      starts[n * FIELDS + k] = length;
      if (!foldInto(text, length, field)) return null;
      length += field.length;
      size += Math.max(0, field.length - 2);
    }
    sizes[n] = size;
    n++;
  }
  starts[n * FIELDS] = length;
  text = text.slice(0, length);
  starts = starts.slice(0, n * FIELDS + 1);
  // A few rows (changed concepts beside a snapshot) are checked one by one: the table of
  // trigrams costs two arrays of 2^21 entries to build, ~10 ms whatever the rows.
  const { keys, offsets, postings } =
    opts.indexed === false ? UNINDEXED : postingsOf(text, starts, n);
  return {
    text,
    starts,
    rowids: rowids.slice(0, n),
    sizes: sizes.slice(0, n),
    keys,
    offsets,
    postings,
  };
}

/** No trigram table: every row is a candidate (`offsets` empty tells rowsWithTrigramsOf). */
const UNINDEXED = {
  keys: new Int32Array(0),
  offsets: new Int32Array(0),
  postings: new Int32Array(0),
};

/** A copy of `array` with room for `size` elements. */
function grown<T extends Uint8Array | Int32Array>(array: T, size: number): T {
  const bigger = new (array.constructor as new (n: number) => T)(size);
  bigger.set(array);
  return bigger;
}

/** Field k (0 id, 1 title, 2 tags) of a row; a missing title holds no tokens. */
function fieldOf(row: TrigramRow, k: number): string {
  const value = k === 0 ? row[1] : k === 1 ? row[2] : row[3];
  return value ?? "";
}

/** Writes `field` folded (A–Z → a–z) at `at`; false on a character outside ASCII. */
function foldInto(text: Uint8Array, at: number, field: string): boolean {
  for (let j = 0; j < field.length; j++) {
    let c = field.charCodeAt(j);
    if (c > ASCII_MAX) return false;
    if (c >= 65 && c <= 90) c += 32;
    text[at + j] = c;
  }
  return true;
}

function keyAt(bytes: Uint8Array, at: number): number {
  return (
    ((bytes[at] as number) << 14) | ((bytes[at + 1] as number) << 7) | (bytes[at + 2] as number)
  );
}

/** Each trigram's rows, each row once: a counting pass, then a filling pass. */
function postingsOf(text: Uint8Array, starts: Int32Array, n: number) {
  const offsets = new Int32Array(KEYS + 1);
  const lastRow = new Int32Array(KEYS).fill(-1);
  const eachKey = (visit: (key: number, row: number) => void) => {
    for (let i = 0; i < n; i++) {
      for (let k = 0; k < FIELDS; k++) {
        const end = starts[i * FIELDS + k + 1] as number;
        for (let at = starts[i * FIELDS + k] as number; at + 3 <= end; at++) {
          const key = keyAt(text, at);
          if (lastRow[key] === i) continue;
          lastRow[key] = i;
          visit(key, i);
        }
      }
    }
  };
  eachKey((key) => {
    offsets[key + 1] = (offsets[key + 1] as number) + 1;
  });
  for (let key = 0; key < KEYS; key++)
    offsets[key + 1] = (offsets[key + 1] as number) + (offsets[key] as number);
  const postings = new Int32Array(offsets[KEYS] as number);
  const fill = offsets.slice(0, KEYS);
  let present = 0;
  for (let key = 0; key < KEYS; key++) if (offsets[key + 1] !== offsets[key]) present++;
  lastRow.fill(-1);
  eachKey((key, row) => {
    postings[fill[key] as number] = row;
    fill[key] = (fill[key] as number) + 1;
  });
  // Only the trigrams present are kept (a dense table of every key is 8 MiB whatever the KB).
  const keys = new Int32Array(present);
  const spans = new Int32Array(present + 1);
  let at = 0;
  for (let key = 0; key < KEYS; key++) {
    if (offsets[key + 1] === offsets[key]) continue;
    keys[at] = key;
    spans[at] = offsets[key] as number;
    at++;
  }
  spans[present] = offsets[KEYS] as number;
  return { keys, offsets: spans, postings };
}

export class TrigramMemory extends HeldRows {
  constructor(private readonly a: TrigramArrays) {
    super(a.rowids, a.sizes);
  }

  /** Bytes held (typed arrays only). */
  get bytes(): number {
    const { text, starts, rowids, sizes, keys, offsets, postings } = this.a;
    const arrays = [text, starts, rowids, sizes, keys, offsets, postings];
    return arrays.reduce((sum, x) => sum + x.byteLength, 0);
  }

  /**
   * Where `phrase` (3 or more ASCII characters, already folded) occurs: the rows holding its
   * trigrams, each checked field by field. `weights`: bm25's per-column weights (id, title, tags).
   */
  hits(phrase: Uint8Array, weights: readonly number[]): PhraseHits {
    const { starts, text } = this.a;
    const candidates = this.rowsWithTrigramsOf(phrase);
    const rows = new Int32Array(candidates.length);
    const freq = new Float64Array(candidates.length);
    const [w0, w1, w2] = weights as [number, number, number];
    const length = phrase.length;
    const c0 = phrase[0] as number;
    const c1 = phrase[1] as number;
    let found = 0;
    for (let c = 0; c < candidates.length; c++) {
      const row = candidates[c] as number;
      // The row's three fields lie side by side: one scan, each match credited to its field
      // when it ends inside it (a match across two fields is no match).
      const title = starts[row * FIELDS + 1] as number;
      const tags = starts[row * FIELDS + 2] as number;
      const end = starts[row * FIELDS + 3] as number;
      let f = 0;
      for (let at = starts[row * FIELDS] as number; at + length <= end; at++) {
        if (text[at] !== c0 || text[at + 1] !== c1) continue;
        let j = 2;
        while (j < length && text[at + j] === phrase[j]) j++;
        if (j < length) continue;
        if (at < title) f += at + length <= title ? w0 : 0;
        else if (at < tags) f += at + length <= tags ? w1 : 0;
        else f += w2;
      }
      if (f > 0) {
        rows[found] = row;
        freq[found] = f;
        found++;
      }
    }
    return { rows: rows.subarray(0, found), freq: freq.subarray(0, found) };
  }

  /**
   * Rows holding every trigram of `phrase` (its rarest first, then up to MAX_INTERSECTED more),
   * ascending: the rows it can occur in, fewer to check field by field.
   */
  private rowsWithTrigramsOf(phrase: Uint8Array): Int32Array {
    const { keys, offsets, postings } = this.a;
    if (offsets.length === 0) return Int32Array.from({ length: this.rowCount }, (_, row) => row);
    const lists: Int32Array[] = [];
    const seen = new Set<number>();
    for (let at = 0; at + 3 <= phrase.length; at++) {
      const key = keyAt(phrase, at);
      if (seen.has(key)) continue;
      seen.add(key);
      const i = sortedIndexOf(keys, key);
      if (i < 0) return new Int32Array(0); // a trigram no row holds: the phrase occurs nowhere
      lists.push(postings.subarray(offsets[i] as number, offsets[i + 1] as number));
    }
    lists.sort((x, y) => x.length - y.length);
    let rows = lists[0] as Int32Array;
    for (const other of lists.slice(1, 1 + MAX_INTERSECTED)) rows = intersect(rows, other);
    return rows;
  }
}

/** Trigram lists intersected beyond the rarest: each is one merge pass over its rows. */
const MAX_INTERSECTED = 3;

/** `term` folded as the trigram tokenizer folds ASCII, or null when it is not all ASCII. */
export function foldedPhrase(term: string): Uint8Array | null {
  const out = new Uint8Array(term.length);
  return foldInto(out, 0, term) ? out : null;
}
