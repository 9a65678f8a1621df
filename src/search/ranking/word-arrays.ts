/**
 * The arrays of a WordMemory (word-memory.ts), built in one pass over the rows the word index
 * was built from.
 *
 * Only for text whose words are ASCII: there the unicode61 tokenizer's tokens are exactly the runs
 * of ASCII letters and digits, folded A–Z → a–z, and a row's size is their number. A character
 * outside ASCII is allowed where the tokenizer itself says it separates words (dashes, curly
 * quotes, arrows, most symbols: `isSeparator`, separator-probe.ts asks SQLite); any other makes
 * the build answer null and the ranker stays in FTS5, whose Unicode tables are not reproduced
 * here.
 *
 * Pure. Every array is transferable (a worker builds them).
 */
import { FNV_OFFSET, FNV_PRIME, TermTable } from "./term-table.js";

/** The arrays of a WordMemory (what a build worker sends back). */
export interface WordArrays {
  /** Every token, ascending (a prefix's tokens are one run). */
  terms: string[];
  /** Token i's postings are postings[offsets[i], offsets[i + 1]). */
  offsets: Int32Array;
  /** Rows holding token i (bm25's n_i for it alone). */
  counts: Int32Array;
  /** Per token, per row holding it in row order: varint (row − previous row), varint frequency. */
  postings: Uint8Array;
  /** The concept rowid of each row. */
  rowids: Int32Array;
  /** Tokens of each row over all columns (bm25's |D|). */
  sizes: Int32Array;
  /** The column weights the frequencies were summed with. */
  weights: number[];
}

/** The rows a memory is built from, in rowid order (WordRow): the text concepts_fts indexed. */
const WORD_COLUMNS =
  "SELECT c.rowid, CAST(c.id AS BLOB), CAST(coalesce(b.title_fold, c.title) AS BLOB), " +
  "CAST(c.tags AS BLOB), CAST(coalesce(b.body_fold, b.body) AS BLOB) " +
  "FROM concepts c JOIN bodies b ON b.concept = c.rowid";
export const WORD_ROWS_SQL = `${WORD_COLUMNS} ORDER BY c.rowid`;
/** The same rows of the concepts whose rowids are given (one JSON array parameter). */
export const WORD_ROWS_OF_SQL = `${WORD_COLUMNS} WHERE c.rowid IN (SELECT value FROM json_each(?)) ORDER BY c.rowid`;

/** A row as read: rowid, then id, title, tags and body as UTF-8 bytes (a missing title is null). */
export type WordRow = readonly [number, Uint8Array, Uint8Array | null, Uint8Array, Uint8Array];

const COLUMNS = 4;
export const MAX_TOKEN_BYTES = 32_768;
/** Prefix phrases spanning more tokens than this are left to FTS5 (a union per token). */
export const MAX_PREFIX_TOKENS = 64;

/**
 * The arrays for `rows`, or null when a character outside ASCII that is not a separator occurs or
 * the postings, tokens and eight bytes a row pass `maxBytes`. `weights` are bm25's column weights
 * (id, title, tags, body), integers so that each frequency is an exact integer.
 */
export function buildWordArrays(
  rows: Iterable<WordRow>,
  weights: readonly number[],
  maxBytes: number,
  isSeparator: (codePoint: number) => boolean = () => false,
): WordArrays | null {
  if (!weights.every((w) => Number.isInteger(w) && w > 0)) return null;
  const table = new TermTable();
  const lists = new PostingLists();
  const row = new RowTerms();
  let rowids = new Int32Array(1 << 12);
  let sizes = new Int32Array(1 << 12);
  let n = 0;
  for (const [rowid, ...columns] of rows) {
    if (n === rowids.length) {
      rowids = grown(rowids, n * 2);
      sizes = grown(sizes, n * 2);
    }
    rowids[n] = rowid;
    let size = 0;
    for (let col = 0; col < COLUMNS; col++) {
      const bytes = columns[col];
      if (!bytes) continue;
      const tokens = scanColumn(bytes, weights[col] as number, table, row, isSeparator);
      if (tokens < 0) return null;
      size += tokens;
    }
    sizes[n] = size;
    row.flush((term, freq) => lists.add(term, n, freq));
    n++;
    if (lists.bytes + table.bytes + n * 8 > maxBytes) return null;
  }
  return finish(table, lists, rowids.slice(0, n), sizes.slice(0, n), [...weights]);
}

/**
 * Adds each token of one column to `row` with `weight`, folding `bytes` in place (they are this
 * build's own copy); the number of tokens, or −1 at a character outside ASCII that is not a
 * separator.
 */
function scanColumn(
  bytes: Uint8Array,
  weight: number,
  table: TermTable,
  row: RowTerms,
  isSeparator: (codePoint: number) => boolean,
): number {
  let tokens = 0;
  let start = -1;
  let hash = 0;
  for (let at = 0; at <= bytes.length; at++) {
    let c = at < bytes.length ? (bytes[at] as number) : 0;
    let last = at; // this character's last byte
    if (c > 0x7f) {
      const width = utf8Width(c);
      if (width === 0 || !isSeparator(codePointAt(bytes, at, width))) return -1;
      last = at + width - 1;
      c = 0; // a separator: it ends a token as ASCII punctuation does
    }
    if ((c >= 48 && c <= 57) || (c >= 97 && c <= 122) || (c >= 65 && c <= 90)) {
      if (c <= 90 && c >= 65) {
        c += 32;
        bytes[at] = c;
      }
      if (start < 0) {
        start = at;
        hash = FNV_OFFSET;
      }
      // FTS5 keeps a token's first MAX_TOKEN_BYTES bytes (fts5_storage.c).
      if (at - start < MAX_TOKEN_BYTES) hash = Math.imul(hash ^ c, FNV_PRIME);
      continue;
    }
    if (start >= 0) {
      row.add(table.intern(bytes, start, Math.min(at, start + MAX_TOKEN_BYTES), hash), weight);
      tokens++;
      start = -1;
    }
    at = last;
  }
  return tokens;
}

/** The bytes of the UTF-8 sequence a lead byte starts (0 for a byte that cannot lead one). */
function utf8Width(lead: number): number {
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  if (lead >= 0xe0) return lead <= 0xef ? 3 : 0;
  return lead >= 0xc2 ? 2 : 0;
}

function codePointAt(bytes: Uint8Array, at: number, width: number): number {
  let cp = (bytes[at] as number) & (0x7f >> width);
  for (let i = 1; i < width; i++) cp = (cp << 6) | ((bytes[at + i] as number) & 0x3f);
  return cp;
}

/** One row's terms and their weighted frequencies, while its columns are read. */
class RowTerms {
  private freq = new Int32Array(1 << 12);
  private touched: number[] = [];

  add(term: number, weight: number): void {
    if (term >= this.freq.length)
      this.freq = grown(this.freq, Math.max(this.freq.length * 2, term + 1));
    if (this.freq[term] === 0) this.touched.push(term);
    this.freq[term] = (this.freq[term] as number) + weight;
  }

  /** Each term once with its frequency, then empty for the next row. */
  flush(visit: (term: number, freq: number) => void): void {
    for (const term of this.touched) {
      visit(term, this.freq[term] as number);
      this.freq[term] = 0;
    }
    this.touched.length = 0;
  }
}

/** The terms sorted, and their postings laid out one after another in that order. */
function finish(
  table: TermTable,
  lists: PostingLists,
  rowids: Int32Array,
  sizes: Int32Array,
  weights: number[],
): WordArrays {
  const strings = table.strings();
  const order = strings.map((_, i) => i).sort((a, b) => compare(strings[a], strings[b]));
  const offsets = new Int32Array(order.length + 1);
  const counts = new Int32Array(order.length);
  const postings = new Uint8Array(lists.bytes);
  let at = 0;
  order.forEach((term, i) => {
    offsets[i] = at;
    counts[i] = lists.count(term);
    const list = lists.bytesOf(term);
    postings.set(list, at);
    at += list.length;
  });
  offsets[order.length] = at;
  return {
    terms: order.map((i) => strings[i] as string),
    offsets,
    counts,
    postings,
    rowids,
    sizes,
    weights,
  };
}

/** Byte order, as FTS5 sorts its terms (the tokens are ASCII: code unit order is byte order). */
function compare(a: string | undefined, b: string | undefined): number {
  return (a as string) < (b as string) ? -1 : 1;
}

/** Each term's growing postings while rows are read. */
class PostingLists {
  private lists: Uint8Array[] = [];
  private lengths = new Int32Array(1 << 10);
  private lastRow = new Int32Array(1 << 10);
  private rows = new Int32Array(1 << 10);
  bytes = 0;

  add(term: number, row: number, freq: number): void {
    if (term >= this.lengths.length) {
      const size = Math.max(this.lengths.length * 2, term + 1);
      this.lengths = grown(this.lengths, size);
      this.lastRow = grown(this.lastRow, size);
      this.rows = grown(this.rows, size);
    }
    let list = this.lists[term];
    if (list === undefined) {
      list = new Uint8Array(16);
      this.lists[term] = list;
    }
    let length = this.lengths[term] as number;
    if (length + 10 > list.length) {
      list = grown(list, list.length * 2);
      this.lists[term] = list;
    }
    const before = length;
    const previous = this.rows[term] === 0 ? -1 : (this.lastRow[term] as number);
    length = writeVarint(list, length, row - previous);
    length = writeVarint(list, length, freq);
    this.bytes += length - before;
    this.lengths[term] = length;
    this.lastRow[term] = row;
    this.rows[term] = (this.rows[term] as number) + 1;
  }

  count(term: number): number {
    return this.rows[term] as number;
  }

  bytesOf(term: number): Uint8Array {
    return (this.lists[term] as Uint8Array).subarray(0, this.lengths[term] as number);
  }
}

function writeVarint(out: Uint8Array, at: number, value: number): number {
  let v = value;
  while (v >= 0x80) {
    out[at++] = (v & 0x7f) | 0x80;
    v >>>= 7;
  }
  out[at++] = v;
  return at;
}

/** A copy of `array` with room for `size` elements. */
function grown<T extends Uint8Array | Int32Array>(array: T, size: number): T {
  const bigger = new (array.constructor as new (n: number) => T)(size);
  bigger.set(array);
  return bigger;
}
