/**
 * A ranker's first rows scored in memory with the scores FTS5's bm25 gives, bit for bit
 * (docs/decisions.md "The trigram ranker in memory", "The word ranker in memory"). SQLite's bm25
 * (fts5_aux.c), per row and phrase i in the expression's order:
 *
 *   score += IDF_i · (f_i·(k1 + 1)) / (f_i + k1·(1 − b + b·|D|/avgdl))
 *   IDF_i = log((N − n_i + 0.5) / (n_i + 0.5)), at least 1e-6;  avgdl = tokens / N
 *
 * with N and the token total from the table's averages record, n_i the rows phrase i alone
 * matches, f_i its column-weighted frequency in the row and |D| the row's tokens. The same
 * double operations run in the same order; the logarithm is SQLite's own (`ln()`, the C
 * library's log, which V8's Math.log may differ from in the last bit).
 */
import { readVarint } from "./score-bound.js";

/** The rows a phrase occurs in and its column-weighted frequency in each (bm25's f). */
export interface PhraseHits {
  /** Row indexes (not rowids), ascending. */
  rows: Int32Array;
  freq: Float64Array;
}

/** What scoring needs of a memory: each row's rowid and size (|D|). */
export interface MemoryRows {
  rowid(row: number): number;
  size(row: number): number;
}

const K1 = 1.2;
const B = 0.75;
const MIN_IDF = 1e-6;

/** N and the token total of the table (FTS5's averages record, `<table>_data` id 1). */
export interface TableTotals {
  rows: number;
  tokens: number;
}

/** Reads the averages record: the row count, then one token total per column (varints). */
export function readTotals(block: Uint8Array, columns: number): TableTotals {
  let at = 0;
  const next = () => {
    const value = readVarint(block.subarray(at));
    at += varintLength(block, at);
    return value;
  };
  const rows = next();
  let tokens = 0;
  for (let c = 0; c < columns; c++) tokens += next();
  return { rows, tokens };
}

function varintLength(bytes: Uint8Array, from: number): number {
  for (let i = 0; i < 9; i++) if (((bytes[from + i] ?? 0) & 0x80) === 0 || i === 8) return i + 1;
  return 9;
}

/** Which of `rowids` a search's filters (scope, a principal's visibility) keep. */
export type VisibleRows = (rowids: number[]) => ReadonlySet<number>;

/** Candidates checked against the filters at most; past them the ranker runs in FTS5. */
const MAX_FILTERED = 4_096;

/**
 * The first `n` rows by score of the phrases' `hits` (in the expression's order), joined by AND
 * (`allTerms`) or OR; best first, equal scores in any order, as FTS5's LIMIT leaves them. `ln`
 * is SQLite's ln(). With `visible`, the first `n` of the rows it keeps (FTS5's LIMIT counts only
 * those, D118), or null when finding them would check more than MAX_FILTERED rows.
 */
export function scoreInMemory(
  memory: MemoryRows,
  hits: readonly PhraseHits[],
  allTerms: boolean,
  totals: TableTotals,
  ln: (x: number) => number,
  n: number,
  visible?: VisibleRows,
): Array<{ rowid: number; score: number }> | null {
  const idf = hits.map((h) => {
    const value = ln((totals.rows - h.rows.length + 0.5) / (h.rows.length + 0.5));
    return value <= 0.0 ? MIN_IDF : value;
  });
  const avgdl = totals.tokens / totals.rows;
  const matched = candidates(hits, allTerms);
  const scores = new Float64Array(matched.rows.length);
  for (let r = 0; r < matched.rows.length; r++) {
    const D = memory.size(matched.rows[r] as number);
    let score = 0.0;
    for (let i = 0; i < hits.length; i++) {
      const f = (matched.freqs[i] as Float64Array)[r] as number;
      score += (idf[i] as number) * ((f * (K1 + 1.0)) / (f + K1 * (1 - B + (B * D) / avgdl)));
    }
    // FTS5 returns −1.0 · score and the ranker's SQL negates it back: the same double.
    scores[r] = score;
  }
  if (!visible) return best(memory, matched.rows, scores, n);
  return bestVisible(memory, matched.rows, scores, n, visible);
}

/**
 * The first `n` rows `visible` keeps: of the best k (4n at first, four times more while too few
 * are kept), those it keeps. Exact in FTS5's sense: every kept row scoring above the n-th kept
 * one is among the best k, and a row past them ties with it at best.
 */
function bestVisible(
  memory: MemoryRows,
  rows: Int32Array,
  scores: Float64Array,
  n: number,
  visible: VisibleRows,
): Array<{ rowid: number; score: number }> | null {
  for (let k = Math.max(4 * n, 64); ; k *= 4) {
    if (Math.min(k, rows.length) > MAX_FILTERED) return null;
    const top = best(memory, rows, scores, k);
    const kept = visible(top.map((t) => t.rowid));
    const shown = top.filter((t) => kept.has(t.rowid));
    if (shown.length >= n || top.length < k) return shown.slice(0, n);
  }
}

/** The `n` best rows, best first: the n-th score is found on a sorted copy, then only those sort. */
function best(
  memory: MemoryRows,
  rows: Int32Array,
  scores: Float64Array,
  n: number,
): Array<{ rowid: number; score: number }> {
  if (n <= 0 || rows.length === 0) return [];
  const cut = n >= scores.length ? Number.NEGATIVE_INFINITY : nthLargest(scores, n);
  const out: Array<{ rowid: number; score: number }> = [];
  for (let r = 0; r < rows.length; r++) {
    const score = scores[r] as number;
    if (score >= cut) out.push({ rowid: memory.rowid(rows[r] as number), score });
  }
  out.sort((x, y) => y.score - x.score);
  return out.slice(0, n);
}

/**
 * The n-th largest of `values` (n ≤ its length): a min-heap of the n largest seen, so 100,000
 * scores cost one comparison each beyond the first n, not a sort (~10 ms).
 */
function nthLargest(values: Float64Array, n: number): number {
  const heap = new Float64Array(n);
  for (let i = 0; i < n; i++) heapPush(heap, i, values[i] as number);
  for (let i = n; i < values.length; i++) {
    const value = values[i] as number;
    if (value <= (heap[0] as number)) continue;
    heap[0] = value;
    siftDown(heap, n);
  }
  return heap[0] as number;
}

function heapPush(heap: Float64Array, size: number, value: number): void {
  let at = size;
  heap[at] = value;
  while (at > 0) {
    const parent = (at - 1) >> 1;
    if ((heap[parent] as number) <= value) break;
    heap[at] = heap[parent] as number;
    heap[parent] = value;
    at = parent;
  }
}

function siftDown(heap: Float64Array, size: number): void {
  let at = 0;
  const value = heap[0] as number;
  for (;;) {
    const left = 2 * at + 1;
    if (left >= size) break;
    const right = left + 1;
    const child = right < size && (heap[right] as number) < (heap[left] as number) ? right : left;
    if ((heap[child] as number) >= value) break;
    heap[at] = heap[child] as number;
    heap[child] = value;
    at = child;
  }
}

/** The matching rows (ascending) and, per phrase, its frequency in each (0 where absent). */
interface Matched {
  rows: Int32Array;
  freqs: Float64Array[];
}

/** Rows matching every phrase (AND) or any (OR), by merging each phrase's ascending rows. */
function candidates(hits: readonly PhraseHits[], allTerms: boolean): Matched {
  let rows = (hits[0] as PhraseHits).rows;
  for (const h of hits.slice(1)) rows = allTerms ? intersect(rows, h.rows) : union(rows, h.rows);
  return { rows, freqs: hits.map((h) => frequencies(h, rows)) };
}

/** Each of `rows`' frequency in `h` (0 where the phrase is absent); both ascending. */
function frequencies(h: PhraseHits, rows: Int32Array): Float64Array {
  if (h.rows === rows) return h.freq;
  const out = new Float64Array(rows.length);
  let j = 0;
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i] as number;
    while (j < h.rows.length && (h.rows[j] as number) < row) j++;
    if (h.rows[j] === row) out[i] = h.freq[j] as number;
  }
  return out;
}

/** The rows in both ascending lists, ascending. */
export function intersect(a: Int32Array, b: Int32Array): Int32Array {
  const out = new Int32Array(Math.min(a.length, b.length));
  let n = 0;
  let j = 0;
  for (let i = 0; i < a.length && j < b.length; i++) {
    const row = a[i] as number;
    while (j < b.length && (b[j] as number) < row) j++;
    if (b[j] === row) out[n++] = row;
  }
  return out.subarray(0, n);
}

function union(a: Int32Array, b: Int32Array): Int32Array {
  const out = new Int32Array(a.length + b.length);
  let n = 0;
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    const x = i < a.length ? (a[i] as number) : Number.POSITIVE_INFINITY;
    const y = j < b.length ? (b[j] as number) : Number.POSITIVE_INFINITY;
    out[n++] = Math.min(x, y);
    if (x <= y) i++;
    if (y <= x) j++;
  }
  return out.subarray(0, n);
}

/** Where `value` is in the ascending `values`, or −1. */
export function sortedIndexOf(values: Int32Array, value: number): number {
  let lo = 0;
  let hi = values.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const at = values[mid] as number;
    if (at === value) return mid;
    if (at < value) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/** A memory's rows, held in rowid order, with each row's size: what scoring and layering read. */
export class HeldRows implements MemoryRows {
  constructor(
    private readonly rowids: Int32Array,
    private readonly sizes: Int32Array,
  ) {}

  get rowCount(): number {
    return this.rowids.length;
  }

  rowid(row: number): number {
    return this.rowids[row] as number;
  }

  /** The row holding concept `rowid`, or −1. */
  rowOf(rowid: number): number {
    return sortedIndexOf(this.rowids, rowid);
  }

  size(row: number): number {
    return this.sizes[row] as number;
  }
}
