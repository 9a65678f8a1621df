/**
 * How a first build (bulk mode, sqlite-index.ts) writes differently from ordinary upkeep:
 * larger transactions, fewer FTS5 segment merges, no fsync (docs/decisions.md "A first build
 * commits every 20,000 rows").
 */
import type Database from "better-sqlite3";

/**
 * Rows a bulk build writes per commit (HeldTransaction); its batches are 500 (kb-index.ts).
 * With BULK_HASHSIZE, 20,000 rows flush FTS5's pending terms in fewer, larger segments than
 * 5,000 did (A/B over 100,000 concepts: docs/benchmarks.md).
 */
export const BULK_COMMIT_ROWS = 20_000;

/**
 * FTS5 merges segments once `automerge` of them share a level (4 by default): a first build
 * merges 16 at a time instead, far less rewriting (three A/B builds of 100,000 concepts: 7-19% less CPU)
 * for more segments, which queries did not measurably feel (20 segments vs 1: same CPU/query).
 */
const BULK_AUTOMERGE = 16;
const DEFAULT_AUTOMERGE = 4;

/**
 * Bytes of pending terms FTS5 buffers per table before it writes a segment (1 MiB by default):
 * a first build buffers 16 MiB, so a transaction of BULK_COMMIT_ROWS flushes a few large
 * segments instead of one per MiB of text.
 */
const BULK_HASHSIZE = 16 * 1024 * 1024;
const DEFAULT_HASHSIZE = 1024 * 1024;

/**
 * Page cache of a first build, KiB (16 MiB instead of 64): its rows and segments are appended,
 * so the larger cache only held dirty pages. In-process A/B over 100,000 concepts: peak RSS
 * 373 → 339–343 MB, build time within noise (21.8 vs 21.8–24.6 s at load ~3).
 */
export const BULK_CACHE_KIB = 16_384;

/**
 * Meta key set while a first build runs in bulk mode and removed when it ends. Found at open,
 * it means the process died mid-build (killed, crashed): the file holds part of the rows
 * without its secondary indexes or deferred vocabulary, and written without fsync
 * (synchronous=OFF), so it is discarded and built again (open-db.ts).
 */
export const BULK_BUILD_KEY = "bulk_build";

/** The FTS5 merge and buffer options of a bulk build (`on`), or of ordinary upkeep. */
export function setBulkFtsOptions(db: Database.Database, on: boolean): void {
  setFtsOption(db, "automerge", on ? BULK_AUTOMERGE : DEFAULT_AUTOMERGE);
  setFtsOption(db, "hashsize", on ? BULK_HASHSIZE : DEFAULT_HASHSIZE);
}

function setFtsOption(db: Database.Database, option: string, value: number): void {
  for (const table of ["concepts_fts", "concepts_tri"])
    db.exec(`INSERT INTO ${table}(${table}, rank) VALUES('${option}', ${Math.trunc(value)})`);
}
