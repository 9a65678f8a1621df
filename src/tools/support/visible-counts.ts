/**
 * Visible concept counts (the KB's and each map's, for `atlas_overview`), kept until the index
 * changes (docs/decisions.md "Console: overview counts are kept until the index changes").
 * Counting 100,000 rows through the visibility predicate costs tens of milliseconds per count,
 * and the console's home and KB pages ask for ten of them on every view; between writes the
 * answer cannot change. A count is keyed by the index's database handle (a recreated index is a
 * new handle), the visibility it was counted under (JSON: a narrower reader never gets a wider
 * reader's count) and the id prefix, and is valid while the change signal is the same.
 *
 * The change signal is SQLite's own: `total_changes()` counts every row this connection inserted,
 * updated or deleted (the index's writes all go through it), and `PRAGMA data_version` changes
 * when another connection commits to the file. Either moving means recount; reading both costs
 * microseconds.
 */
import type Database from "better-sqlite3";
import type { Visibility } from "../../kb/core/types.js";
import type { SqliteSearchIndex } from "../../search/sqlite-index.js";

/** Distinct (visibility, prefix) counts kept per index; the oldest goes first. */
const MAX_PER_INDEX = 512;

interface Kept {
  signal: string;
  total: number;
}

interface PerIndex {
  changes: Database.Statement;
  counts: Map<string, Kept>;
}

const kept = new WeakMap<Database.Database, PerIndex>();

function perIndex(db: Database.Database): PerIndex {
  let p = kept.get(db);
  if (p === undefined) {
    p = { changes: db.prepare("SELECT total_changes() AS n"), counts: new Map() };
    kept.set(db, p);
  }
  return p;
}

/** The index's change signal: differs after any write to its database, by any connection. */
export function changeSignal(db: Database.Database): string {
  const changes = perIndex(db).changes.get() as { n: number };
  const version = db.pragma("data_version", { simple: true }) as number;
  return `${changes.n}:${version}`;
}

/** Concepts visible under `visibility` (with id `prefix` when given), recounted only after a write. */
export function visibleCount(
  index: SqliteSearchIndex,
  visibility: Visibility,
  prefix?: string,
): number {
  const db = index.database();
  const signal = changeSignal(db);
  const counts = perIndex(db).counts;
  const key = `${JSON.stringify(visibility)}\u0000${prefix ?? ""}`;
  const hit = counts.get(key);
  if (hit !== undefined && hit.signal === signal) return hit.total;
  const total = index.list({ prefix, limit: 1, visibility }).total;
  counts.delete(key);
  counts.set(key, { signal, total });
  while (counts.size > MAX_PER_INDEX) counts.delete(counts.keys().next().value as string);
  return total;
}
