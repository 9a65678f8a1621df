/**
 * An upper bound on the FTS5 bm25 score any row can get for a MATCH expression, computed without
 * scoring a row, so a ranker that cannot reach the page is skipped (docs/decisions.md "A ranker
 * whose bm25 upper bound"). SQLite's bm25 (fts5_aux.c) is, per row,
 *
 *   Σ over phrases i:  IDF_i · f_i·(k1 + 1) / (f_i + k1·(1 − b + b·|D|/avgdl)),
 *   IDF_i = max(log((N − n_i + 0.5) / (n_i + 0.5)), 1e-6),  k1 = 1.2, b = 0.75,
 *
 * where f_i is the phrase's column-weighted frequency in the row, n_i the rows matching phrase i
 * alone and N the table's row count. The fraction stays below k1 + 1 for any frequency and any
 * positive weights (its denominator's second term is at least k1·(1 − b) > 0), so no row scores
 * above Σ IDF_i·(k1 + 1). A phrase no row matches adds 0 to every row. top-ranked.ts uses this to
 * skip a ranker none of whose rows could reach the page.
 */
import type { StatementCache } from "../statement-cache.js";

const K1 = 1.2;
/** SQLite's floor for a non-positive IDF. */
const MIN_IDF = 1e-6;
/** Room for the last-bit differences between SQLite's log() and Math.log and their sums. */
const SLACK = 1e-9;

export type FtsTable = "concepts_fts" | "concepts_tri";

/**
 * Calls `stop(partial)` after each phrase's share (phrases in order) so a caller can give up as
 * soon as the bound passes what it needs; returns the bound (Infinity when stopped early).
 */
export function bm25Bound(
  cache: StatementCache,
  table: FtsTable,
  phrases: readonly string[],
  stop: (partial: number) => boolean,
): number {
  const rows = rowCountBound(cache, table);
  let bound = 0;
  for (const phrase of phrases) {
    const hits = cache
      .get(`SELECT count(*) FROM ${table} WHERE ${table} MATCH ?`)
      .pluck()
      .get(phrase) as number;
    bound += share(rows, hits);
    if (stop(bound)) return Number.POSITIVE_INFINITY;
  }
  return withSlack(bound);
}

/**
 * The same bound from a document count per phrase; `rows` as rowCountBound gives it. Any count
 * at most the phrase's true one keeps it a bound (a smaller count only raises the IDF).
 */
export function boundFromCounts(rows: number, hits: readonly number[]): number {
  return withSlack(hits.reduce((bound, n) => bound + share(rows, n), 0));
}

/** A phrase's most a row can get from it: IDF·(k1 + 1); none when no row matches it. */
function share(rows: number, hits: number): number {
  if (hits === 0) return 0;
  return Math.max(Math.log((rows - hits + 0.5) / (hits + 0.5)), MIN_IDF) * (K1 + 1);
}

/**
 * The fewest matching rows that bring one phrase's share under `under` (so counting that many
 * and no more proves it); null when no count can (the IDF floor, or more rows than there are).
 */
export function hitsForShareBelow(rows: number, under: number): number | null {
  const k = under / (K1 + 1);
  if (!(k > MIN_IDF)) return null;
  // log((rows − n + ½) / (n + ½)) < k  ⇔  n > (rows + ½ − ½·eᵏ) / (1 + eᵏ); one more for the
  // last bits of log(), the slack covers the rest.
  const e = Math.exp(k);
  if (!Number.isFinite(e)) return 1;
  const hits = Math.max(1, Math.floor((rows + 0.5 - 0.5 * e) / (1 + e)) + 2);
  return hits > rows ? null : hits;
}

function withSlack(bound: number): number {
  return bound * (1 + SLACK) + SLACK;
}

/**
 * At least the N bm25 uses (a larger N only raises each IDF, so the bound stays a bound): the
 * larger of the row count FTS5 keeps in its averages record and the largest concept rowid.
 */
export function rowCountBound(cache: StatementCache, table: FtsTable): number {
  const block = cache.get(`SELECT block FROM ${table}_data WHERE id = 1`).pluck().get() as
    | Buffer
    | undefined;
  const maxRowid = cache.get("SELECT max(rowid) FROM concepts").pluck().get() as number | null;
  return Math.max(block ? readVarint(block) : 0, maxRowid ?? 0);
}

/**
 * SQLite's varint (the averages record starts with the row count as one): big-endian groups of
 * 7 bits with the high bit set on all but the last, the 9th byte carrying 8 bits.
 */
export function readVarint(bytes: Uint8Array): number {
  let value = 0;
  for (let i = 0; i < 9 && i < bytes.length; i++) {
    const byte = bytes[i] as number;
    if (i === 8) return value * 256 + byte;
    value = value * 128 + (byte & 0x7f);
    if ((byte & 0x80) === 0) return value;
  }
  return value;
}
