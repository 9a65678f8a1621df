/**
 * Opens (or creates) the index database. The file is derived data: a missing, unreadable,
 * corrupt or outdated (schema version) file is replaced by a fresh empty one — never fatal.
 */
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import type { Logger } from "../logger.js";
import { createSchema, SCHEMA_VERSION } from "./schema.js";

export interface OpenedDb {
  db: Database.Database;
  /** True when the database was created empty (missing, corrupt or outdated file). */
  fresh: boolean;
}

export function openIndexDb(dbPath: string, logger: Logger): OpenedDb {
  const inMemory = dbPath === ":memory:";
  if (!inMemory) fs.mkdirSync(path.dirname(dbPath), { recursive: true });
  const existed = !inMemory && fs.existsSync(dbPath);
  try {
    const db = new Database(dbPath);
    try {
      configure(db);
      const version = db.pragma("user_version", { simple: true }) as number;
      if (version === SCHEMA_VERSION) {
        probe(db);
        return { db, fresh: false };
      }
      if (version === 0 && tableCount(db) === 0) {
        createSchema(db);
        return { db, fresh: true };
      }
      logger.warn(
        `search index ${dbPath} has schema version ${version}, expected ${SCHEMA_VERSION}; rebuilding it`,
      );
    } catch (err) {
      logger.warn(`search index ${dbPath} is unreadable (${describe(err)}); rebuilding it`);
    }
    db.close();
  } catch (err) {
    logger.warn(`search index ${dbPath} could not be opened (${describe(err)}); rebuilding it`);
  }
  if (inMemory || !existed) throw new Error(`cannot create search index at ${dbPath}`);
  removeDbFiles(dbPath);
  const db = new Database(dbPath);
  configure(db);
  createSchema(db);
  return { db, fresh: true };
}

function configure(db: Database.Database): void {
  db.pragma("journal_mode = WAL");
  // Derived data: losing the last transactions on power loss only costs a reconcile.
  db.pragma("synchronous = NORMAL");
  db.pragma("busy_timeout = 5000");
  db.pragma("cache_size = -65536"); // 64 MiB: the ranking joins touch every matching row
}

/** Touches every table so a damaged file fails here, at open, rather than mid-query. */
function probe(db: Database.Database): void {
  db.prepare("SELECT rowid, id, hash FROM concepts LIMIT 1").all();
  db.prepare("SELECT key FROM meta LIMIT 1").all();
  db.prepare("SELECT concept FROM fields LIMIT 1").all();
  db.prepare("SELECT concept FROM bodies LIMIT 1").all();
  db.prepare("SELECT rowid FROM concepts_fts WHERE concepts_fts MATCH 'probe' LIMIT 1").all();
  db.prepare("SELECT rowid FROM concepts_tri WHERE concepts_tri MATCH 'probe' LIMIT 1").all();
}

function tableCount(db: Database.Database): number {
  const row = db.prepare("SELECT count(*) AS n FROM sqlite_schema").get() as { n: number };
  return row.n;
}

function removeDbFiles(dbPath: string): void {
  for (const suffix of ["", "-wal", "-shm", "-journal"]) {
    fs.rmSync(dbPath + suffix, { force: true });
  }
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
