/**
 * The index schema. Bump SCHEMA_VERSION on any change: an index.db whose `user_version` differs
 * is rebuilt from the KB (the file is derived data, never migrated).
 */
import type Database from "better-sqlite3";

export const SCHEMA_VERSION = 1;

/**
 * `concepts` holds one row per concept; `concepts_fts` is an external-content FTS5 table over it
 * (trigram: case-insensitive substring matching), kept in sync by triggers. `fields` flattens the
 * frontmatter to one row per scalar (list elements get one row each) so `where` predicates are
 * plain indexed lookups.
 */
const DDL = `
CREATE TABLE concepts (
  rowid INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  path TEXT NOT NULL,
  map TEXT,
  journal TEXT,
  type TEXT NOT NULL,
  title TEXT,
  tags TEXT NOT NULL,
  hash TEXT NOT NULL,
  frontmatter TEXT NOT NULL,
  timestamp TEXT,
  ts_ms INTEGER,
  body TEXT NOT NULL,
  mtime_ms REAL,
  size INTEGER,
  stat_at_ms REAL
);
CREATE INDEX concepts_map ON concepts(map);
CREATE INDEX concepts_journal ON concepts(journal);
CREATE INDEX concepts_type ON concepts(type);
CREATE INDEX concepts_ts ON concepts(ts_ms);
CREATE TABLE fields (
  concept INTEGER NOT NULL REFERENCES concepts(rowid) ON DELETE CASCADE,
  key TEXT NOT NULL,
  value TEXT NOT NULL
);
CREATE INDEX fields_kv ON fields(key, value);
CREATE INDEX fields_concept ON fields(concept);
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE VIRTUAL TABLE concepts_fts USING fts5(
  name, title, tags, body,
  content='concepts', content_rowid='rowid',
  tokenize='trigram'
);
CREATE TRIGGER concepts_ai AFTER INSERT ON concepts BEGIN
  INSERT INTO concepts_fts(rowid, name, title, tags, body)
  VALUES (new.rowid, new.id, new.title, new.tags, new.body);
END;
CREATE TRIGGER concepts_ad AFTER DELETE ON concepts BEGIN
  INSERT INTO concepts_fts(concepts_fts, rowid, name, title, tags, body)
  VALUES ('delete', old.rowid, old.id, old.title, old.tags, old.body);
  DELETE FROM fields WHERE concept = old.rowid;
END;
`;

/** FTS column weights for bm25, in column order (name, title, tags, body): title above body. */
export const BM25_WEIGHTS = [4.0, 8.0, 3.0, 1.0] as const;

export function createSchema(db: Database.Database): void {
  db.exec(DDL);
  db.pragma(`user_version = ${SCHEMA_VERSION}`);
}

/** Drops every object of the schema (used by a full rebuild inside one transaction). */
export function dropSchema(db: Database.Database): void {
  db.exec(`
    DROP TABLE IF EXISTS concepts_fts;
    DROP TRIGGER IF EXISTS concepts_ai;
    DROP TRIGGER IF EXISTS concepts_ad;
    DROP TABLE IF EXISTS fields;
    DROP TABLE IF EXISTS meta;
    DROP TABLE IF EXISTS concepts;
  `);
}
