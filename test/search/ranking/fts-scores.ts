/** FTS5's own bm25 scores of a MATCH, and the check that a memory gave the same, bit for bit. */
import type Database from "better-sqlite3";
import { expect } from "vitest";

/** Every matching row's `-bm25(table, weights)`, by rowid. */
export function ftsScores(
  db: Database.Database,
  table: "concepts_fts" | "concepts_tri",
  weights: readonly number[],
  match: string,
): Map<number, number> {
  const rows = db
    .prepare(
      `SELECT rowid, -bm25(${table}, ${weights.join(", ")}) AS score FROM ${table} WHERE ${table} MATCH ?`,
    )
    .all(match) as Array<{ rowid: number; score: number }>;
  return new Map(rows.map((r) => [r.rowid, r.score]));
}

/** Expects `got` to hold exactly `expected`'s rows with the same scores (Object.is); their number. */
export function expectSameScores(
  got: ReadonlyArray<{ rowid: number; score: number }> | null,
  expected: ReadonlyMap<number, number>,
  label: string,
): number {
  expect(got, label).not.toBeNull();
  const mine = new Map((got ?? []).map((r) => [r.rowid, r.score]));
  expect([...mine.keys()].sort(), label).toEqual([...expected.keys()].sort());
  for (const [rowid, score] of expected)
    expect(Object.is(mine.get(rowid), score), label).toBe(true);
  return expected.size;
}
