/**
 * One concept's rows across the index's tables (concepts, bodies, both FTS5 indexes, fields):
 * inserted together and deleted together, always inside the caller's transaction.
 */
import type { ConceptDoc } from "../kb/core/types.js";
import { type ConceptRow, type FileStat, type PreparedRow, prepareRow } from "./rows.js";
import type { StatementCache } from "./statement-cache.js";
import type { Vocabulary } from "./vocabulary.js";

const INSERT_SQL = `INSERT INTO concepts
  (id, path, map, journal, type, title, tags, hash, frontmatter, timestamp, ts_ms, mtime_ms, size, stat_at_ms)
  VALUES (@id, @path, @map, @journal, @type, @title, @tags, @hash, @frontmatter, @timestamp, @ts_ms,
          @mtime_ms, @size, @stat_at_ms)`;

/** Deletes every row of concept `id` (nothing when it is not indexed). */
export function removeConceptRow(cache: StatementCache, id: string): void {
  const rowid = cache.get("SELECT rowid FROM concepts WHERE id = ?").pluck().get(id) as
    | number
    | undefined;
  if (rowid === undefined) return;
  for (const table of ["concepts_fts", "concepts_tri", "bodies", "fields"]) {
    const key = table === "bodies" || table === "fields" ? "concept" : "rowid";
    cache.get(`DELETE FROM ${table} WHERE ${key} = ?`).run(rowid);
  }
  cache.get("DELETE FROM concepts WHERE rowid = ?").run(rowid);
}

/**
 * `asciiVocabLater`: a bulk insert, whose ASCII-only tokens fillVocabulary adds at the end.
 * `prepared`: the row values computed ahead (prepareRow, possibly on the read worker).
 */
export function insertConceptRow(
  cache: StatementCache,
  vocab: Vocabulary,
  doc: ConceptDoc,
  stat: FileStat | undefined,
  asciiVocabLater = false,
  prepared: PreparedRow = prepareRow(doc),
): void {
  const { row, body, titleFold, bodyFold } = prepared;
  row.mtime_ms = stat?.mtimeMs ?? null;
  row.size = stat?.size ?? null;
  row.stat_at_ms = stat ? Date.now() : null;
  const rowid = cache.get(INSERT_SQL).run(row).lastInsertRowid;
  // Only a bounded prefix of the body is stored and indexed (text-bounds.ts); the word index
  // and the vocabulary see the same folded text (vocabulary.ts).
  cache
    .get("INSERT INTO bodies(concept, body, title_fold, body_fold) VALUES (?, ?, ?, ?)")
    .run(rowid, body, titleFold, bodyFold);
  cache
    .get("INSERT INTO concepts_fts(rowid, id, title, tags, body) VALUES (?, ?, ?, ?, ?)")
    .run(rowid, row.id, titleFold ?? row.title, row.tags, bodyFold ?? body);
  // A bulk build takes the tokens of ASCII-only rows from the word index at its end
  // (fillVocabulary): the same tokens, cut in C instead of a regex per row (~30% of a build).
  if (!asciiVocabLater || titleFold !== null || bodyFold !== null)
    vocab.add([(titleFold ?? row.title ?? "").toLowerCase(), (bodyFold ?? body).toLowerCase()]);
  cache
    .get("INSERT INTO concepts_tri(rowid, id, title, tags) VALUES (?, ?, ?, ?)")
    .run(rowid, row.id, row.title, row.tags);
  const insertField = cache.get("INSERT INTO fields(concept, key, value) VALUES (?, ?, ?)");
  for (const [key, value] of prepared.fields) insertField.run(rowid, key, value);
}

/** Records a file's stat for a concept whose content did not change (no other column moves). */
export function touchConceptStat(cache: StatementCache, id: string, stat: FileStat): void {
  cache
    .get("UPDATE concepts SET mtime_ms = ?, size = ?, stat_at_ms = ? WHERE id = ?")
    .run(stat.mtimeMs, stat.size, Date.now(), id);
}

/** How `doc` stands against its stored row: absent, the same content, or changed. */
export function storedChange(cache: StatementCache, doc: ConceptDoc): "new" | "same" | "changed" {
  const row = cache
    .get("SELECT path, map, journal, hash, frontmatter FROM concepts WHERE id = ?")
    .get(doc.id) as StoredContent | undefined;
  if (!row) return "new";
  return sameContent(row, doc) ? "same" : "changed";
}

type StoredContent = Pick<ConceptRow, "path" | "map" | "journal" | "hash" | "frontmatter">;

/** The hash ignores `timestamp` and comments; placement can change without the file changing. */
function sameContent(row: StoredContent, doc: ConceptDoc): boolean {
  return (
    row.hash === doc.hash &&
    row.path === doc.path &&
    row.map === doc.map &&
    row.journal === doc.journal &&
    row.frontmatter === JSON.stringify(doc.frontmatter)
  );
}
