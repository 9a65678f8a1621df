/**
 * How a first build (bulk mode, sqlite-index.ts) writes differently from ordinary upkeep:
 * larger transactions and fewer FTS5 segment merges (issue 16).
 */
import type Database from "better-sqlite3";

/** Rows a bulk build writes per commit (HeldTransaction); its batches are 500 (kb-index.ts). */
export const BULK_COMMIT_ROWS = 5_000;

/**
 * FTS5 merges segments once `automerge` of them share a level (4 by default): a first build
 * merges 16 at a time instead, far less rewriting (three A/B builds of 100,000 concepts: 7-19% less CPU)
 * for more segments, which queries did not measurably feel (20 segments vs 1: same CPU/query).
 */
export const BULK_AUTOMERGE = 16;
export const DEFAULT_AUTOMERGE = 4;

export function setAutomerge(db: Database.Database, segments: number): void {
  for (const table of ["concepts_fts", "concepts_tri"])
    db.exec(`INSERT INTO ${table}(${table}, rank) VALUES('automerge', ${Math.trunc(segments)})`);
}
