/**
 * Opens (or creates) the index database. The file is derived data: a missing or outdated
 * (schema version) file is replaced by a fresh empty one; an unreadable or corrupt one (db, -wal
 * or -shm) is moved aside as `index.db.corrupt-<time>[-wal|-shm]` (kept for a post-mortem, see
 * docs/search.md) and replaced, with a warning. Never fatal: when even a fresh file cannot be
 * created, the index lives in memory for this run (docs/decisions.md "A damaged index file is moved
 * aside").
 */
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import type { Logger } from "../logger.js";
import { BULK_BUILD_KEY } from "./bulk-settings.js";
import { createSchema, SCHEMA_VERSION } from "./schema.js";

export interface OpenedDb {
  db: Database.Database;
  /** True when the database was created empty (missing, corrupt or outdated file). */
  fresh: boolean;
}

export interface OpenDbOptions {
  /**
   * Skip quick_check at open (the table probes still run): the caller checks the file later,
   * off the event loop (the server's background build, integrity-check.ts).
   */
  deferQuickCheck?: boolean;
}

export function openIndexDb(dbPath: string, logger: Logger, opts: OpenDbOptions = {}): OpenedDb {
  const inMemory = dbPath === ":memory:";
  if (!inMemory) fs.mkdirSync(path.dirname(dbPath), { recursive: true });
  let damage: unknown;
  try {
    const db = new Database(dbPath);
    try {
      configure(db);
      const version = db.pragma("user_version", { simple: true }) as number;
      if (version === SCHEMA_VERSION) {
        probe(db, opts.deferQuickCheck !== true);
        if (!interruptedBuild(db)) return { db, fresh: false };
        // Part of the rows, no secondary indexes, written without fsync: start over.
        logger.info(
          `search index ${dbPath} is from a first build that did not finish; rebuilding it`,
        );
        db.close();
        removeDbFiles(dbPath);
        return { db: createDb(dbPath, logger), fresh: true };
      }
      if (version === 0 && tableCount(db) === 0) {
        createSchema(db);
        return { db, fresh: true };
      }
      // Outdated, not damaged: nothing worth keeping.
      logger.warn(
        `search index ${dbPath} has schema version ${version}, expected ${SCHEMA_VERSION}; rebuilding it`,
      );
      db.close();
      removeDbFiles(dbPath);
      return { db: createDb(dbPath, logger), fresh: true };
    } catch (err) {
      if (inMemory) throw err;
      // Aside before closing: SQLite's close would checkpoint and delete the WAL evidence.
      moveAside(dbPath, describe(err), logger);
      closeQuietly(db);
      return { db: createDb(dbPath, logger), fresh: true };
    }
  } catch (err) {
    damage = err;
  }
  if (inMemory) throw damage;
  moveAside(dbPath, describe(damage), logger);
  return { db: createDb(dbPath, logger), fresh: true };
}

/**
 * Replaces a database found damaged while in use: moves its files aside and creates a fresh,
 * empty one at the same path (the caller has closed the old handle and refills the new one).
 */
export function recreateIndexDb(dbPath: string, reason: string, logger: Logger): Database.Database {
  if (dbPath !== ":memory:") moveAside(dbPath, reason, logger);
  return createDb(dbPath, logger);
}

/**
 * True for SQLite errors meaning the file itself is bad or unusable (corrupt, not a database,
 * I/O error, cannot open, read-only, permission): a rebuild helps. Busy or locked do not count.
 */
export function isDamagedDbError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" && DAMAGED.test(code);
}

const DAMAGED = /^SQLITE_(CORRUPT|NOTADB|IOERR|CANTOPEN|READONLY|PERM)/;

/** Page cache per connection, KiB (64 MiB): the ranking joins touch every matching row. */
export const CACHE_KIB = 65_536;

function configure(db: Database.Database): void {
  db.pragma("journal_mode = WAL");
  // Derived data: losing the last transactions on power loss only costs a reconcile.
  db.pragma("synchronous = NORMAL");
  db.pragma("busy_timeout = 5000");
  db.pragma(`cache_size = -${CACHE_KIB}`);
}

/**
 * Fails here, at open, rather than mid-query on a damaged file: every table is touched and
 * quick_check walks every b-tree page (tens of ms on the 10,000-concept KB, docs/benchmarks.md).
 */
function probe(db: Database.Database, quickCheck: boolean): void {
  db.prepare("SELECT rowid, id, hash FROM concepts LIMIT 1").all();
  db.prepare("SELECT key FROM meta LIMIT 1").all();
  db.prepare("SELECT concept FROM fields LIMIT 1").all();
  db.prepare("SELECT concept FROM bodies LIMIT 1").all();
  db.prepare("SELECT term FROM vocab LIMIT 1").all();
  db.prepare("SELECT rowid FROM concepts_fts WHERE concepts_fts MATCH 'probe' LIMIT 1").all();
  db.prepare("SELECT rowid FROM concepts_tri WHERE concepts_tri MATCH 'probe' LIMIT 1").all();
  if (!quickCheck) return;
  const check = db.pragma("quick_check(1)", { simple: true });
  if (check !== "ok")
    throw Object.assign(new Error(`quick_check: ${check}`), { code: "SQLITE_CORRUPT" });
}

/** True when a first build's bulk mode never ended in this file (bulk-settings.ts). */
function interruptedBuild(db: Database.Database): boolean {
  return db.prepare("SELECT 1 FROM meta WHERE key = ?").get(BULK_BUILD_KEY) !== undefined;
}

/** A fresh database with the schema; in memory (with a warning) when the file cannot be made. */
function createDb(dbPath: string, logger: Logger): Database.Database {
  try {
    return withSchema(new Database(dbPath));
  } catch (err) {
    if (dbPath === ":memory:") throw err;
    logger.warn(
      `search index ${dbPath} cannot be created (${describe(err)}); keeping the index in memory for this run`,
    );
    return withSchema(new Database(":memory:"));
  }
}

function withSchema(db: Database.Database): Database.Database {
  try {
    configure(db);
    createSchema(db);
    return db;
  } catch (err) {
    closeQuietly(db);
    throw err;
  }
}

function tableCount(db: Database.Database): number {
  const row = db.prepare("SELECT count(*) AS n FROM sqlite_schema").get() as { n: number };
  return row.n;
}

const SIDE_FILES = ["", "-wal", "-shm", "-journal"];

function removeDbFiles(dbPath: string): void {
  for (const suffix of SIDE_FILES) fs.rmSync(dbPath + suffix, { force: true });
}

/** Renames the db and its side files to `<name>.corrupt-<time><suffix>`; deletes what cannot move. */
function moveAside(dbPath: string, reason: string, logger: Logger): void {
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  const aside = `${dbPath}.corrupt-${stamp}`;
  let moved = false;
  let existed = false;
  for (const suffix of SIDE_FILES) {
    if (!fs.existsSync(dbPath + suffix)) continue;
    existed = true;
    try {
      fs.renameSync(dbPath + suffix, aside + suffix);
      moved = true;
    } catch {
      fs.rmSync(dbPath + suffix, { recursive: true, force: true });
    }
  }
  if (!existed) {
    logger.warn(`search index ${dbPath} cannot be opened (${reason}); creating it afresh`);
    return;
  }
  const where = moved ? `moved aside to ${path.basename(aside)}` : "removed";
  // One log line: quick_check reports several lines.
  const why = reason.replace(/\s+/g, " ").trim();
  logger.warn(`search index ${dbPath} is damaged (${why}); ${where}, rebuilding it`);
}

function closeQuietly(db: Database.Database): void {
  try {
    db.close();
  } catch {
    // Already unusable: its files are moved aside next.
  }
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
