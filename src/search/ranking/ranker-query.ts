/**
 * One ranker of a keyword search (an FTS5 table, its bm25 expression and MATCH) and the query
 * that returns its best rows (top-ranked.ts).
 */

import { andAll, type SqlFragment, TRUE_SQL } from "../sql-fragment.js";
import type { StatementCache } from "../statement-cache.js";
import type { FtsTable } from "./score-bound.js";

export interface Ranker {
  /** The FTS5 table and its score expression (-bm25 with the table's weights; larger is better). */
  table: FtsTable;
  rank: string;
  match: string;
  /** Each phrase of `match` alone (bm25's per-phrase document counts, score-bound.ts). */
  phrases: string[];
  /** Whether `match` joins its phrases with AND (else OR). */
  allTerms: boolean;
  /**
   * The same first rows computed without SQL (a search memory; with filters, of the rows they
   * keep), or null to run the query.
   */
  inMemory?: (n: number) => Scored[] | null;
  /**
   * Each phrase's row count from memory (exact, or at most it: the bound stays a bound), or null
   * to count them in FTS5 (top-ranked.ts).
   */
  counts?: () => readonly number[] | null;
}

export interface Scored {
  rowid: number;
  score: number;
}

/** One ranker's first `n` rows by score. */
export function rankerTop(
  cache: StatementCache,
  ranker: Ranker,
  filters: SqlFragment[],
  n: number,
): Scored[] {
  const remembered = ranker.inMemory?.(n);
  if (remembered) return remembered;
  const { sql, params } = rankerQuery(ranker, filters, n);
  return cache.get(sql).all(...params) as Scored[];
}

/** The query of rankerTop; joined to concepts only when a filter needs it. */
export function rankerQuery(ranker: Ranker, filters: SqlFragment[], n: number): SqlFragment {
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
