/**
 * Keyword search over the index: all terms first, any term next, the whole query as a substring
 * last (substring-fallback.ts). Visibility and scope are part of the WHERE clause, so LIMIT counts
 * only visible hits (D118). Hits whose file no longer exists are dropped before answering, so a
 * concept moved or deleted since it was indexed never shows (docs/decisions.md "Search and
 * `concept_list` stat each answered hit's file").
 */
import type { SearchHit, SearchQuery, SearchResult } from "./api.js";
import { exactTerms } from "./prefix-terms.js";
import { ftsExpression, parseTerms, type QueryTerms } from "./query-terms.js";
import type { VisibleRows } from "./ranking/bm25-memory.js";
import { type Ranker, topRanked } from "./ranking/top-ranked.js";
import { BM25_WEIGHTS, TRI_WEIGHTS } from "./schema.js";
import { scopeSql } from "./scope.js";
import type { SearchMemory } from "./search-memory.js";
import { makeSnippet } from "./snippet.js";
import { andAll, escapeLike, placeholders, type SqlFragment, TRUE_SQL } from "./sql-fragment.js";
import type { StatementCache } from "./statement-cache.js";
import { substringRows } from "./substring-fallback.js";
import { foldText, SNIPPET_WINDOW_CHARS } from "./text-bounds.js";
import { visibilitySql } from "./visibility-sql.js";
import type { Vocabulary } from "./vocabulary.js";

interface HitRow {
  id: string;
  path: string;
  title: string | null;
  type: string;
  map: string | null;
  journal: string | null;
  body: string;
  score: number;
}

/** The body is read as its opening only: snippets of word hits are cut from it. */
const COLUMNS = `c.id, c.path, c.title, c.type, c.map, c.journal, substr(b.body, 1, ${SNIPPET_WINDOW_CHARS}) AS body`;
const WORD_RANK = `-bm25(concepts_fts, ${BM25_WEIGHTS.join(", ")})`;
const TRI_RANK = `-bm25(concepts_tri, ${TRI_WEIGHTS.join(", ")})`;

/** True when a KB-root-relative path still names a file (the index's stored `path`). */
export type PathExists = (path: string) => boolean;

/** What a search may use beyond the index's connection. */
export interface SearchContext {
  /** Rows whose file is gone are dropped (see `live`). */
  exists?: PathExists | undefined;
  /** The trigram and word rankers' memories, used while they match the data (search-memory.ts). */
  memory?: SearchMemory | undefined;
}

export function runSearch(
  cache: StatementCache,
  query: SearchQuery,
  vocab: Vocabulary,
  context: SearchContext = {},
): SearchResult {
  const { exists, memory } = context;
  const terms = parseTerms(query.query);
  const limit = Math.max(0, Math.floor(query.limit));
  if (terms.all.length === 0 || limit === 0) return { results: [], match: "none" };
  const filters: SqlFragment[] = [visibilitySql(query.visibility, "c")];
  const scope = scopeSql(query.scope, "c");
  if (scope) filters.push(scope);

  // The word index holds folded text (vocabulary.ts): fold the terms the same way. A term only
  // one token starts with is matched as that token, the same rows and scores (prefix-terms.ts);
  // asked once, for the all-terms and the any-term pass alike.
  const folded = terms.words.map(foldText);
  const exact = memory?.exactTerms(folded) ?? exactTerms(cache, folded, vocab);
  const words = { folded, exact };
  const all = live((n) => fetch(cache, terms, words, "AND", filters, n, memory), limit, exists);
  if (all.length > 0) return { results: toHits(all, terms), match: "all_terms" };
  if (terms.all.length >= 2) {
    const any = live((n) => fetch(cache, terms, words, "OR", filters, n, memory), limit, exists);
    if (any.length > 0) return { results: toHits(any, terms), match: "any_term" };
  }
  const sub = live((n) => substringRows(cache, vocab, query.query, filters, n), limit, exists);
  if (sub.length === 0) return { results: [], match: "none" };
  const needle = [query.query.trim()];
  const results = sub.map((r) => {
    const snippet = makeSnippet(r.body, needle);
    return {
      ...hitFields(r),
      snippet: r.start > 1 && !snippet.startsWith("…") ? `…${snippet}` : snippet,
    };
  });
  return { results, match: "substring" };
}

/**
 * The first `limit` rows whose file still exists. Rows are dropped only in the short window
 * between a file's move/delete and the index catching up, so one wider re-query suffices.
 */
function live<R extends { path: string }>(
  query: (limit: number) => R[],
  limit: number,
  exists: PathExists | undefined,
): R[] {
  const rows = query(limit);
  if (!exists) return rows;
  const kept = rows.filter((r) => exists(r.path));
  if (kept.length === rows.length || rows.length < limit) return kept;
  return query(limit * 2 + 16)
    .filter((r) => exists(r.path))
    .slice(0, limit);
}

/** The query's word terms folded, and those matched as one token (exactTerms). */
interface WordTerms {
  folded: string[];
  exact: ReadonlyMap<string, string>;
}

function fetch(
  cache: StatementCache,
  terms: QueryTerms,
  { folded, exact }: WordTerms,
  op: "AND" | "OR",
  filters: SqlFragment[],
  limit: number,
  memory: SearchMemory | undefined,
) {
  // A term made only of punctuation matches no index; with AND it could never be satisfied
  // through one, so such queries take the LIKE path (they are rare and short).
  const indexable = op === "AND" ? terms.words.length === terms.all.length : terms.words.length > 0;
  if (!indexable) return likeSearch(cache, terms.all, op, filters, limit);
  const where = andAll(filters);
  const words = folded.map((w) => exact.get(w) ?? w);
  const tokens = new Set(exact.values());
  const prefix = (t: string) => !tokens.has(t);
  const wordExpr = ftsExpression(words, op, prefix);
  const wordPhrases = words.map((text) => ({ text, prefix: prefix(text) }));
  // Filtered searches rank from memory too, keeping the rows the filters keep (bm25-memory.ts).
  const visible = filters.every((f) => f === TRUE_SQL) ? undefined : visibleRows(cache, where);
  // Substrings of id/title/tags (trigram); under AND every term must be long enough for it.
  const triTerms =
    op === "AND" ? (terms.long.length === terms.all.length ? terms.long : []) : terms.long;
  const rankers: Ranker[] = [
    {
      table: "concepts_fts",
      rank: WORD_RANK,
      match: wordExpr,
      phrases: words.map((w) => ftsExpression([w], op, prefix)),
      allTerms: op === "AND",
      // From memory: FTS5 counts every row of each phrase for bm25's IDF on every query.
      ...(memory
        ? {
            inMemory: (n: number) =>
              memory.rankWords(
                { phrases: wordPhrases, allTerms: op === "AND", weights: BM25_WEIGHTS },
                n,
                visible,
              ),
            counts: () => memory.wordCounts(wordPhrases),
          }
        : {}),
    },
  ];
  // The trigram ranker first: its few, short fields are cheap to score and usually fill the
  // page above anything the word ranker could score, which is then skipped (top-ranked.ts).
  if (triTerms.length > 0)
    rankers.unshift({
      table: "concepts_tri",
      rank: TRI_RANK,
      match: ftsExpression(triTerms, op, false),
      phrases: triTerms.map((t) => ftsExpression([t], op, false)),
      allTerms: op === "AND",
      // From memory where FTS5 scores every match (one phrase, or any of several); under AND
      // FTS5 scores only the rows with every phrase, as fast as the memory finds them.
      ...(memory && (op === "OR" || triTerms.length === 1)
        ? {
            inMemory: (n: number) =>
              memory.rank(
                { terms: triTerms, allTerms: op === "AND", weights: TRI_WEIGHTS },
                n,
                visible,
              ),
          }
        : {}),
    });
  const top = topRanked(cache, rankers, filters, limit);
  if (top !== null) return pageRows(cache, top);
  // A cut between equal scores: rank every match (rowids and the small columns only; bodies
  // are read for the final page alone).
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

/** Which rowids the search's filters keep: one query, the rowids as one JSON parameter. */
function visibleRows(cache: StatementCache, where: SqlFragment): VisibleRows {
  const sql = `SELECT c.rowid FROM concepts c WHERE c.rowid IN (SELECT value FROM json_each(?)) AND ${where.sql}`;
  return (rowids) => {
    const kept = cache
      .get(sql)
      .pluck()
      .all(JSON.stringify(rowids), ...where.params) as number[];
    return new Set(kept);
  };
}

/** The hit rows of ranked rowids, in their order. */
function pageRows(cache: StatementCache, top: Array<{ rowid: number; score: number }>): HitRow[] {
  if (top.length === 0) return [];
  const rows = cache
    .get(
      `SELECT c.rowid AS rowid, ${COLUMNS} FROM concepts c JOIN bodies b ON b.concept = c.rowid ` +
        `WHERE c.rowid IN (${placeholders(top.length)})`,
    )
    .all(...top.map((t) => t.rowid)) as Array<HitRow & { rowid: number }>;
  const byRowid = new Map(rows.map(({ rowid, ...row }) => [rowid, row]));
  return top.flatMap(({ rowid, score }) => {
    const row = byRowid.get(rowid);
    return row ? [{ ...row, score }] : [];
  });
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
  return rows.map((r) => ({ ...hitFields(r), snippet: makeSnippet(r.body, terms.all) }));
}

function hitFields(r: Omit<HitRow, "body" | "score">): Omit<SearchHit, "snippet"> {
  return { id: r.id, title: r.title, type: r.type, map: r.map, journal: r.journal };
}
