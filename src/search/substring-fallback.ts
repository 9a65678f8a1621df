/**
 * Last resort of keyword search: when neither all-terms nor any-term matched, look for the whole
 * query as a substring of titles and bodies (case- and diacritics-insensitive). The word index
 * matches bodies at word starts only (docs/decisions.md §Search), which misses text without
 * spaces (CJK) and fragments inside words; this restores substring matching for those queries.
 *
 * Served from the index alone — LIKE over the stored (bounded, folded) titles and bodies with
 * the visibility and scope predicates in the same WHERE, before LIMIT — so it never reads a
 * file and never touches a concept the caller cannot see (docs/decisions.md "The substring fallback
 * is answered from the index").
 */
import { andAll, escapeLike, type SqlFragment } from "./sql-fragment.js";
import type { StatementCache } from "./statement-cache.js";
import { foldText, SNIPPET_WINDOW_CHARS, SNIPPET_WINDOW_LEAD } from "./text-bounds.js";
import type { Vocabulary } from "./vocabulary.js";

export interface SubstringRow {
  id: string;
  path: string;
  title: string | null;
  type: string;
  map: string | null;
  journal: string | null;
  /** A window of the stored body around the match (the opening for a title-only match). */
  body: string;
  /** 1-based offset of `body` in the stored body: above 1, text was cut before the window. */
  start: number;
}

/** The fallback is skipped for queries longer than this (characters, after folding). */
export const MAX_SUBSTRING_QUERY_CHARS = 1_000;

const TITLE = "coalesce(b.title_fold, c.title, '')";
const BODY = "coalesce(b.body_fold, b.body)";

/**
 * Concepts whose title or body contains `query` (folded), title matches first, then by id.
 * `filters` (visibility, scope) are ANDed into the WHERE before the LIMIT.
 */
export function substringRows(
  cache: StatementCache,
  vocab: Vocabulary,
  query: string,
  filters: SqlFragment[],
  limit: number,
): SubstringRow[] {
  const needle = foldText(query.trim());
  // Longer needles are pasted text, not fragments; SQLite also refuses LIKE patterns > 50,000 bytes.
  if (needle === "" || limit <= 0 || needle.length > MAX_SUBSTRING_QUERY_CHARS) return [];
  // Only concepts holding a token that contains each part of the fragment can match.
  const candidates = vocab.candidates(needle);
  if (candidates === "none") return [];
  const pattern = `%${escapeLike(needle)}%`;
  const where = andAll([
    {
      sql: `${TITLE} LIKE ? ESCAPE '\\' OR ${BODY} LIKE ? ESCAPE '\\'`,
      params: [pattern, pattern],
    },
    ...(candidates === null
      ? []
      : [
          {
            sql: "c.rowid IN (SELECT rowid FROM concepts_fts WHERE concepts_fts MATCH ?)",
            params: [candidates],
          },
        ]),
    ...filters,
  ]);
  // Rank on rowids first; the match position and the snippet window are computed for the page
  // only. Folded bodies can differ in length from the stored text (é → e, Hangul → jamo), so for
  // them the window is placed by the length ratio and is wide enough to absorb the drift.
  const sql =
    `WITH r AS MATERIALIZED (SELECT c.rowid AS rowid, (${TITLE} LIKE ? ESCAPE '\\') AS in_title ` +
    `FROM concepts c JOIN bodies b ON b.concept = c.rowid WHERE ${where.sql} ` +
    "ORDER BY in_title DESC, c.id LIMIT ?), " +
    "p AS MATERIALIZED (SELECT r.rowid AS rowid, r.in_title AS in_title, " +
    `CASE WHEN b.body_fold IS NULL THEN max(1, instr(lower(b.body), ?) - ${SNIPPET_WINDOW_LEAD}) ` +
    "ELSE max(1, CAST(instr(b.body_fold, ?) * 1.0 * length(b.body) / max(1, length(b.body_fold)) AS INTEGER)" +
    ` - ${SNIPPET_WINDOW_CHARS / 2}) END AS start FROM r JOIN bodies b ON b.concept = r.rowid) ` +
    "SELECT c.id, c.path, c.title, c.type, c.map, c.journal, p.start AS start, " +
    `substr(b.body, p.start, ${SNIPPET_WINDOW_CHARS}) AS body ` +
    "FROM p JOIN concepts c ON c.rowid = p.rowid JOIN bodies b ON b.concept = p.rowid " +
    "ORDER BY p.in_title DESC, c.id";
  return cache.get(sql).all(pattern, ...where.params, limit, needle, needle) as SubstringRow[];
}
