/**
 * A write transaction held open across the batches of a first build and committed every
 * `commitEvery` rows. The event loop runs between batches while it is open: searches on the
 * same connection see the rows written so far, and a tool's write nests as a savepoint. Fewer
 * commits mean fewer and larger FTS5 segments to merge: committing every 500 rows spent a third
 * of a 20,000-concept build in COMMIT (docs/decisions.md "A first build holds one transaction
 * across batches").
 */
import type Database from "better-sqlite3";

export class HeldTransaction {
  private open = false;
  private rows = 0;

  constructor(
    private readonly db: () => Database.Database,
    private readonly commitEvery: number,
  ) {}

  /** Opens the transaction unless it is open already. */
  begin(): void {
    if (this.open) {
      this.checkAlive();
      return;
    }
    this.db().exec("BEGIN");
    this.open = true;
    this.rows = 0;
  }

  /** Counts rows written in it; commits once `commitEvery` have accumulated. */
  rowsWritten(n: number): void {
    this.rows += n;
    if (this.rows >= this.commitEvery) this.commit();
  }

  commit(): void {
    if (!this.open) return;
    this.checkAlive();
    this.open = false;
    this.db().exec("COMMIT");
  }

  /** Drops the rows written since the last commit (a batch failed half-way). */
  rollback(): void {
    if (!this.open) return;
    this.open = false;
    if (this.db().inTransaction) this.db().exec("ROLLBACK");
  }

  /** The connection was replaced (recreate): nothing is held on the new one. */
  forget(): void {
    this.open = false;
  }

  /**
   * SQLite rolls a whole transaction back on some errors (disk full, I/O) even inside a
   * savepoint a tool's write opened: the rows since the last commit are gone, and the build
   * must not go on as if they were indexed.
   */
  private checkAlive(): void {
    if (this.db().inTransaction) return;
    this.open = false;
    throw new Error(
      "the index build's transaction was rolled back by SQLite; the build stops, the next pass redoes it",
    );
  }
}
