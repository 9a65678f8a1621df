/**
 * Keyword search over the index: all terms first, any term as a fallback. Visibility and scope
 * are part of the WHERE clause, so LIMIT counts only visible hits (D118).
 */
import type { SearchHit, SearchQuery, SearchResult } from "./api.js";
import { ftsExpression, parseTerms, type QueryTerms } from "./query-terms.js";
import { BM25_WEIGHTS } from "./schema.js";
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

const COLUMNS = "c.id, c.title, c.type, c.map, c.journal, c.body";

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
  return any.length > 0 ? { results: toHits(any, terms), match: "any_term" } : { results: [], match: "none" };
}

function fetch(cache: StatementCache, terms: QueryTerms, op: "AND" | "OR", filters: SqlFragment[], limit: number) {
  // Short terms cannot use the trigram index. With AND they narrow an FTS match; with OR they
  // would need a full scan next to the index, so the any-term pass uses the long terms only
  // when there are some (short terms are then mostly stop words like "of", "to").
  if (terms.long.length > 0) {
    const shortAll = op === "AND" ? terms.short.map(likeAnyColumn) : [];
    const where = andAll([...shortAll, ...filters]);
    const weights = BM25_WEIGHTS.join(", ");
    const sql =
      `SELECT ${COLUMNS}, -bm25(concepts_fts, ${weights}) AS score ` +
      "FROM concepts_fts JOIN concepts c ON c.rowid = concepts_fts.rowid " +
      `WHERE concepts_fts MATCH ? AND ${where.sql} ORDER BY score DESC, c.id LIMIT ?`;
    return cache.get(sql).all(ftsExpression(terms.long, op), ...where.params, limit) as HitRow[];
  }
  return likeSearch(cache, terms.short, op, filters, limit);
}

/** Queries made only of 1–2 character terms: LIKE over title, tags, id and body. */
function likeSearch(cache: StatementCache, terms: string[], op: "AND" | "OR", filters: SqlFragment[], limit: number) {
  const likes = terms.map(likeAnyColumn);
  const match: SqlFragment = {
    sql: likes.map((l) => `(${l.sql})`).join(` ${op} `),
    params: likes.flatMap((l) => l.params),
  };
  const where = andAll([match, ...filters]);
  // Rank title hits above id/tag hits above body-only hits, then by id for stability.
  const titleHits = terms.map(() => "(c.title LIKE ? ESCAPE '\\')").join(" + ");
  const sql =
    `SELECT ${COLUMNS}, (${titleHits}) * 2.0 + 1.0 AS score FROM concepts c ` +
    `WHERE ${where.sql} ORDER BY score DESC, c.id LIMIT ?`;
  const titleParams = terms.map((t) => `%${escapeLike(t)}%`);
  return cache.get(sql).all(...titleParams, ...where.params, limit) as HitRow[];
}

function likeAnyColumn(term: string): SqlFragment {
  const pattern = `%${escapeLike(term)}%`;
  return {
    sql: "c.title LIKE ? ESCAPE '\\' OR c.tags LIKE ? ESCAPE '\\' OR c.id LIKE ? ESCAPE '\\' OR c.body LIKE ? ESCAPE '\\'",
    params: [pattern, pattern, pattern, pattern],
  };
}

function toHits(rows: HitRow[], terms: QueryTerms): SearchHit[] {
  return rows.map((r) => ({
    id: r.id,
    title: r.title,
    type: r.type,
    map: r.map,
    journal: r.journal,
    snippet: makeSnippet(r.body, terms.all),
    score: Math.round(r.score * 1000) / 1000,
  }));
}
