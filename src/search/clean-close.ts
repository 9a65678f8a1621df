/**
 * Whether an index file was last closed by this code, cleanly (docs/decisions.md "The deferred
 * quick_check runs only after an unclean close"). The deferred quick_check (integrity-check.ts)
 * reads every page of the file: ~3.7 s of CPU on a 100,000-concept index, on the second core while
 * the first searches of a warm start run. What it guards against is a file torn by a crash or power
 * loss mid-write, so it is skipped when the previous process closed the file itself: close() writes
 * a mark into `meta`, the next open takes it (clears it), so a process that dies leaves no mark and
 * its successor checks. Damage that appears while the file is closed still surfaces on the first
 * query that reads it (isDamagedDbError → the file is moved aside and rebuilt).
 */
import type Database from "better-sqlite3";

const CLEAN_CLOSE_KEY = "closed_cleanly";

/** Writes the mark (best effort: a read-only or damaged file just keeps no mark). */
export function markCleanClose(db: Database.Database): void {
  try {
    if (db.inTransaction) return; // a build cut short: not a clean state
    db.prepare(
      "INSERT INTO meta(key, value) VALUES (?, '1') ON CONFLICT(key) DO UPDATE SET value = '1'",
    ).run(CLEAN_CLOSE_KEY);
  } catch {
    // No mark: the next open checks the file.
  }
}

/** True when the file carries the mark; removes it, so only a clean close puts it back. */
export function takeCleanClose(db: Database.Database): boolean {
  try {
    const removed = db
      .prepare("DELETE FROM meta WHERE key = ? AND value = '1'")
      .run(CLEAN_CLOSE_KEY);
    return removed.changes > 0;
  } catch {
    return false;
  }
}
