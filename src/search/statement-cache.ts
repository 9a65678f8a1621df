/**
 * Prepared statements keyed by SQL text. Query shapes vary (number of terms, visibility rules,
 * where clauses) but repeat a lot, so each distinct shape is prepared once and reused.
 */
import type Database from "better-sqlite3";

const MAX_STATEMENTS = 200;

export class StatementCache {
  private readonly statements = new Map<string, Database.Statement>();

  constructor(private readonly db: Database.Database) {}

  get(sql: string): Database.Statement {
    const hit = this.statements.get(sql);
    if (hit) {
      // Re-insert to keep the most recently used shapes at the end (simple LRU).
      this.statements.delete(sql);
      this.statements.set(sql, hit);
      return hit;
    }
    const stmt = this.db.prepare(sql);
    if (this.statements.size >= MAX_STATEMENTS) {
      const oldest = this.statements.keys().next().value;
      if (oldest !== undefined) this.statements.delete(oldest);
    }
    this.statements.set(sql, stmt);
    return stmt;
  }

  /** Whether the connection is inside a transaction (a build may hold one across batches). */
  get inTransaction(): boolean {
    return this.db.inTransaction;
  }

  /** Runs SQL without a result (DDL such as a connection's temp tables). */
  exec(sql: string): void {
    this.db.exec(sql);
  }

  clear(): void {
    this.statements.clear();
  }
}
