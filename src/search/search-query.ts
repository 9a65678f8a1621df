/**
 * Keyword search over the index: all terms first, any term as a fallback. Visibility and scope
 * are part of the WHERE clause, so LIMIT counts only visible hits (D118).
 */
import type { SearchHit, SearchQuery, SearchResult } from "./api.js";
import { ftsExpression, parseTerms, type QueryTerms } from "./query-terms.js";
import { BM25_WEIGHTS, TRI_WEIGHTS } from "./schema.js";
import { scopeSql } from "./scope.js";
import { makeSnippet } from "./snippet.js";
import { andAll, escapeLike, type SqlFragment } from "./sql-fragment.js";
import type { StatementCache } from "./statement-cache.js";
import { visibilitySql } from "./visibility-sql.js";

interface HitRow {
  id: string;
  title: string | null;
  type: string;
  map: string | null;
  journal: string | null;
  body: string;
  score: number;
}

const COLUMNS = "c.id, c.title, c.type, c.map, c.journal, b.body";
const WORD_RANK = `-bm25(concepts_fts, ${BM25_WEIGHTS.join(", ")})`;
const TRI_RANK = `-bm25(concepts_tri, ${TRI_WEIGHTS.join(", ")})`;

export function runSearch(cache: StatementCache, query: SearchQuery): SearchResult {
  const terms = parseTerms(query.query);
  const limit = Math.max(0, Math.floor(query.limit));
  if (terms.all.length === 0 || limit === 0) return { results: [], match: "none" };
  const filters: SqlFragment[] = [visibilitySql(query.visibility, "c")];
  const scope = scopeSql(query.scope, "c");
  if (scope) filters.push(scope);

  const all = fetch(cache, terms, "AND", filters, limit);
  if (all.length > 0) return { results: toHits(all, terms), match: "all_terms" };
  if (terms.all.length < 2) return { results: [], match: "none" };
  const any = fetch(cache, terms, "OR", filters, limit);
  return any.length > 0
    ? { results: toHits(any, terms), match: "any_term" }
    : { results: [], match: "none" };
}

function fetch(
  cache: StatementCache,
  terms: QueryTerms,
  op: "AND" | "OR",
  filters: SqlFragment[],
  limit: number,
) {
  // A term made only of punctuation matches no index; with AND it could never be satisfied
  // through one, so such queries take the LIKE path (they are rare and short).
  const indexable = op === "AND" ? terms.words.length === terms.all.length : terms.words.length > 0;
  if (!indexable) return likeSearch(cache, terms.all, op, filters, limit);
  const where = andAll(filters);
  const wordExpr = ftsExpression(terms.words, op, true);
  // Substrings of id/title/tags (trigram); under AND every term must be long enough for it.
  const triTerms =
    op === "AND" ? (terms.long.length === terms.all.length ? terms.long : []) : terms.long;
  // Rank on rowids and the small columns only; bodies are read for the final page alone.
  let ranked: string;
  let params: unknown[];
  if (triTerms.length === 0) {
    ranked =
      `SELECT c.rowid AS rowid, ${WORD_RANK} AS score FROM concepts_fts JOIN concepts c ON c.rowid = concepts_fts.rowid ` +
      `WHERE concepts_fts MATCH ? AND ${where.sql} ORDER BY score DESC, c.id LIMIT ?`;
    params = [wordExpr, ...where.params, limit];
  } else {
    // MATERIALIZED: a flattened CTE would move bm25() out of its FTS5 context.
    ranked =
      `WITH m(rowid, score) AS MATERIALIZED (` +
      `SELECT rowid, ${WORD_RANK} FROM concepts_fts WHERE concepts_fts MATCH ? UNION ALL ` +
      `SELECT rowid, ${TRI_RANK} FROM concepts_tri WHERE concepts_tri MATCH ?) ` +
      `SELECT c.rowid AS rowid, max(m.score) AS score FROM m JOIN concepts c ON c.rowid = m.rowid ` +
      `WHERE ${where.sql} GROUP BY c.rowid ORDER BY score DESC, c.id LIMIT ?`;
    params = [wordExpr, ftsExpression(triTerms, op, false), ...where.params, limit];
  }
  const sql =
    `WITH r AS MATERIALIZED (${ranked}) ` +
    `SELECT ${COLUMNS}, r.score AS score FROM r JOIN concepts c ON c.rowid = r.rowid ` +
    "JOIN bodies b ON b.concept = r.rowid ORDER BY r.score DESC, c.id";
  return cache.get(sql).all(...params) as HitRow[];
}

/** Terms without letters or digits: LIKE over title, tags, id and body. */
function likeSearch(
  cache: StatementCache,
  terms: string[],
  op: "AND" | "OR",
  filters: SqlFragment[],
  limit: number,
) {
  const likes = terms.map(likeAnyColumn);
  const match: SqlFragment = {
    sql: likes.map((l) => `(${l.sql})`).join(` ${op} `),
    params: likes.flatMap((l) => l.params),
  };
  const where = andAll([match, ...filters]);
  // Title hits first, then by id for stability.
  const titleHits = terms.map(() => "(c.title LIKE ? ESCAPE '\\')").join(" + ");
  const sql =
    `SELECT ${COLUMNS}, (${titleHits}) * 2.0 + 1.0 AS score FROM concepts c JOIN bodies b ON b.concept = c.rowid ` +
    `WHERE ${where.sql} ORDER BY score DESC, c.id LIMIT ?`;
  const titleParams = terms.map((t) => `%${escapeLike(t)}%`);
  return cache.get(sql).all(...titleParams, ...where.params, limit) as HitRow[];
}

function likeAnyColumn(term: string): SqlFragment {
  const pattern = `%${escapeLike(term)}%`;
  return {
    sql: "c.title LIKE ? ESCAPE '\\' OR c.tags LIKE ? ESCAPE '\\' OR c.id LIKE ? ESCAPE '\\' OR b.body LIKE ? ESCAPE '\\'",
    params: [pattern, pattern, pattern, pattern],
  };
}

/**
 * No score on the wire: FTS5 bm25 is near 0 when a term is in most documents (every hit of a
 * small KB read "score":0), and across two rankers and a LIKE fallback it compares nothing.
 * The order of the results is the rank.
 */
function toHits(rows: HitRow[], terms: QueryTerms): SearchHit[] {
  return rows.map((r) => ({
    id: r.id,
    title: r.title,
    type: r.type,
    map: r.map,
    journal: r.journal,
    snippet: makeSnippet(r.body, terms.all),
  }));
}
