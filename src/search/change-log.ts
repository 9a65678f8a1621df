/**
 * Which concepts this connection changed since a point, logged by temporary triggers on the
 * tables the search memories are built from (`concepts`: id, title, tags; `bodies`: the text),
 * so a memory can keep serving after a write with the changed concepts read anew beside it
 * (search-memory.ts; docs/decisions.md "The search memories serve through writes").
 *
 * Triggers, not the write paths: every statement that changes those rows logs, whichever code
 * runs it, and a rolled-back write takes its log rows with it (the log is a table in the same
 * transaction). Temporary objects belong to this connection: another connection's commits are
 * not logged (the memory checks `PRAGMA data_version` for those), and dropping `concepts` or
 * `bodies` drops the triggers, which `intact()` then reports, so the memory is not trusted.
 */
import type Database from "better-sqlite3";
import type { StatementCache } from "./statement-cache.js";

const TABLE = "temp.search_changes";
/** Each trigger: its name, event, table and the rowid expressions it logs. */
const TRIGGERS: Array<[string, string, string, string[]]> = [
  ["search_changes_ci", "INSERT", "concepts", ["new.rowid"]],
  ["search_changes_cd", "DELETE", "concepts", ["old.rowid"]],
  ["search_changes_cu", "UPDATE", "concepts", ["old.rowid", "new.rowid"]],
  ["search_changes_bi", "INSERT", "bodies", ["new.concept"]],
  ["search_changes_bd", "DELETE", "bodies", ["old.concept"]],
  ["search_changes_bu", "UPDATE", "bodies", ["old.concept", "new.concept"]],
];

export class ChangeLog {
  constructor(
    private readonly db: Database.Database,
    private readonly cache: StatementCache,
  ) {}

  /** Whether every trigger is in place (a dropped table drops its triggers with it). */
  intact(): boolean {
    const count = this.cache
      .get(
        "SELECT count(*) FROM temp.sqlite_master WHERE type = 'trigger' AND name LIKE 'search_changes_%'",
      )
      .pluck()
      .get() as number;
    return count === TRIGGERS.length;
  }

  /** Creates the log and whichever triggers are missing (outside a transaction only). */
  ensure(): void {
    // AUTOINCREMENT: a sequence number is never reused, even after every row is pruned.
    const ddl = [
      `CREATE TABLE IF NOT EXISTS ${TABLE} (seq INTEGER PRIMARY KEY AUTOINCREMENT, concept INTEGER NOT NULL)`,
    ];
    for (const [name, event, table, rowids] of TRIGGERS) {
      // A trigger's statements name tables unqualified (SQLite's rule): the temporary one here.
      const inserts = rowids
        .map((r) => `INSERT INTO search_changes(concept) VALUES (${r});`)
        .join(" ");
      ddl.push(
        `CREATE TEMP TRIGGER IF NOT EXISTS ${name} AFTER ${event} ON main.${table} BEGIN ${inserts} END`,
      );
    }
    this.db.exec(`${ddl.join(";\n")};`);
  }

  /** The last sequence number logged (0 before any). */
  head(): number {
    return this.cache.get(`SELECT coalesce(max(seq), 0) FROM ${TABLE}`).pluck().get() as number;
  }

  /** The concepts changed after `seq`, or null when there are more than `max`. */
  since(seq: number, max: number): number[] | null {
    const rowids = this.cache
      .get(`SELECT DISTINCT concept FROM ${TABLE} WHERE seq > ? LIMIT ?`)
      .pluck()
      .all(seq, max + 1) as number[];
    return rowids.length > max ? null : rowids;
  }

  /** Forgets what was logged up to `seq` (no memory needs it any longer); none before ensure(). */
  prune(seq: number): void {
    const exists = this.cache
      .get(
        "SELECT count(*) FROM temp.sqlite_master WHERE type = 'table' AND name = 'search_changes'",
      )
      .pluck()
      .get();
    if (exists) this.cache.get(`DELETE FROM ${TABLE} WHERE seq <= ?`).run(seq);
  }
}
