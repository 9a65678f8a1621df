/**
 * The index schema. Bump SCHEMA_VERSION on any change: an index.db whose `user_version` differs
 * is rebuilt from the KB (the file is derived data, never migrated).
 */
import type Database from "better-sqlite3";

/** Also bumped when the content-hash rule changes: `concepts.hash` is derived from it. */
export const SCHEMA_VERSION = 5;

/**
 * `concepts` holds one narrow row per concept (filters and ranking joins touch only it); the
 * bodies live in `bodies`, read for the final page only. Two contentless FTS5 tables (rows
 * deletable by rowid) index them: `concepts_fts` (words, diacritics folded) over id, title,
 * tags and body ranks with bm25 and answers word-prefix matches; `concepts_tri` (trigram) over
 * the short fields id, title and tags answers substring matches anywhere in them. A trigram
 * index over the bodies too was measured 6–8× slower to build and 3× slower to query on the
 * 10,000-concept benchmark KB, missing both targets, so body text matches by word prefix only.
 * `fields` flattens the frontmatter to one row per scalar (list elements get one row each) so
 * `where` predicates are plain indexed lookups.
 * Bodies are stored and word-indexed up to MAX_INDEXED_BODY_CHARS (text-bounds.ts). The no-hit
 * substring fallback runs LIKE over `title_fold`/`body_fold` (folded copies, NULL for pure ASCII
 * text, which LIKE matches case-insensitively as it is) and never reads a file (v2), on the
 * concepts whose tokens (`vocab`, vocabulary.ts) can contain the fragment (v3). concepts_fts
 * indexes the folded title and body, so its tokens and `vocab`'s are cut from the same text.
 */
/** The word index's tokenizer (the word memory asks it which characters separate words). */
export const WORD_TOKENIZER = "unicode61 remove_diacritics 2";

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
  timestamp TEXT,
  ts_ms INTEGER,
  mtime_ms REAL,
  size INTEGER,
  stat_at_ms REAL,
  frontmatter TEXT NOT NULL
);
CREATE TABLE bodies (
  concept INTEGER PRIMARY KEY, body TEXT NOT NULL, title_fold TEXT, body_fold TEXT
);
CREATE TABLE fields (concept INTEGER NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL);
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE vocab (term TEXT PRIMARY KEY) WITHOUT ROWID;
CREATE VIRTUAL TABLE concepts_fts USING fts5(
  id, title, tags, body, content='', contentless_delete=1, tokenize='${WORD_TOKENIZER}'
);
CREATE VIRTUAL TABLE concepts_tri USING fts5(
  id, title, tags, content='', contentless_delete=1, tokenize='trigram remove_diacritics 1'
);
`;

/** Secondary indexes, created after the rows on a full rebuild (much faster than maintained per row). */
const INDEXES = `
CREATE INDEX concepts_map ON concepts(map);
CREATE INDEX concepts_journal ON concepts(journal);
CREATE INDEX concepts_type ON concepts(type);
CREATE INDEX concepts_ts ON concepts(ts_ms);
CREATE INDEX fields_kv ON fields(key, value);
CREATE INDEX fields_concept ON fields(concept);
`;

/** bm25 column weights of concepts_fts (id, title, tags, body): title above body. */
export const BM25_WEIGHTS = [4.0, 8.0, 3.0, 1.0] as const;
/** bm25 column weights of concepts_tri (id, title, tags). */
export const TRI_WEIGHTS = [4.0, 8.0, 3.0] as const;

export function createSchema(db: Database.Database, opts: { indexes?: boolean } = {}): void {
  db.exec(DDL);
  if (opts.indexes !== false) createIndexes(db);
  db.pragma(`user_version = ${SCHEMA_VERSION}`);
}

export function createIndexes(db: Database.Database): void {
  db.exec(INDEXES.replaceAll("CREATE INDEX ", "CREATE INDEX IF NOT EXISTS "));
}

/** Drops the secondary indexes (a first build inserts every row, then calls createIndexes). */
export function dropIndexes(db: Database.Database): void {
  for (const m of INDEXES.matchAll(/CREATE INDEX (\w+)/g)) db.exec(`DROP INDEX IF EXISTS ${m[1]}`);
}

/** Drops every object of the schema (used by a full rebuild inside one transaction). */
export function dropSchema(db: Database.Database): void {
  db.exec(`
    DROP TABLE IF EXISTS concepts_fts;
    DROP TABLE IF EXISTS concepts_tri;
    DROP TABLE IF EXISTS bodies;
    DROP TABLE IF EXISTS fields;
    DROP TABLE IF EXISTS meta;
    DROP TABLE IF EXISTS vocab;
    DROP TABLE IF EXISTS concepts;
  `);
}
