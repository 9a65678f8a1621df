/**
 * `concept_list`: where predicates, timestamp bounds, id prefix and visibility all in the WHERE
 * clause, so `limit`, `total` and `truncated` only ever count visible concepts (D118). Items whose
 * file is gone (moved or deleted, index not yet caught up) are dropped from the page and from
 * `total` (docs/decisions.md "Search and `concept_list` stat each answered hit's file").
 */
import { KbError } from "../common/errors.js";
import type { ListItem, ListQuery, ListResult } from "./api.js";
import { parseTimestamp } from "./rows.js";
import { scopeSql } from "./scope.js";
import type { PathExists } from "./search-query.js";
import { andAll, type SqlFragment } from "./sql-fragment.js";
import type { StatementCache } from "./statement-cache.js";
import { visibilitySql } from "./visibility-sql.js";
import { parseWhere, whereSql } from "./where.js";

export function runList(cache: StatementCache, query: ListQuery, exists?: PathExists): ListResult {
  const parts: SqlFragment[] = [visibilitySql(query.visibility, "c")];
  const prefix = scopeSql(query.prefix, "c", "prefix");
  if (prefix) parts.push(prefix);
  for (const pred of parseWhere(query.where ?? [])) parts.push(whereSql(pred, "c"));
  if (query.from !== undefined) parts.push({ sql: "c.id >= ?", params: [query.from] });
  if (query.since !== undefined)
    parts.push({ sql: "c.ts_ms >= ?", params: [bound(query.since, "since", false)] });
  if (query.until !== undefined)
    parts.push({ sql: "c.ts_ms <= ?", params: [bound(query.until, "until", true)] });
  const where = andAll(parts);
  const limit = Math.max(0, Math.floor(query.limit));
  const page = (n: number) =>
    cache
      .get(
        `SELECT c.id, c.title, c.type, c.map, c.journal, c.hash, c.path FROM concepts c WHERE ${where.sql} ORDER BY c.id LIMIT ?`,
      )
      .all(...where.params, n) as Array<ListItem & { path: string }>;
  let rows = page(limit);
  let gone = 0;
  if (exists) {
    const kept = rows.filter((r) => exists(r.path));
    gone = rows.length - kept.length;
    if (gone > 0 && rows.length === limit) {
      // Look one wider page ahead so the page stays full; vanished rows are a brief window.
      const wider = page(limit * 2 + 16);
      const live = wider.filter((r) => exists(r.path));
      gone = wider.length - live.length;
      rows = live.slice(0, limit);
    } else rows = kept;
  }
  const items: ListItem[] = rows.map(({ path: _path, ...item }) => item);
  const { n } = cache
    .get(`SELECT count(*) AS n FROM concepts c WHERE ${where.sql}`)
    .get(...where.params) as {
    n: number;
  };
  const total = Math.max(items.length, n - gone);
  return { items, total, truncated: total > items.length };
}

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const DAY_MS = 86_400_000;

/** Epoch ms of a bound; a date-only `until` covers that whole (UTC) day. */
function bound(text: string, name: string, isUntil: boolean): number {
  const ms = parseTimestamp(text.trim());
  if (ms === null) {
    throw new KbError(
      "invalid_argument",
      `${name} ${JSON.stringify(text)} is not an ISO-8601 time; use e.g. 2024-05-01 or 2024-05-01T12:00:00Z`,
    );
  }
  return isUntil && DATE_ONLY.test(text.trim()) ? ms + DAY_MS - 1 : ms;
}

/**
 * Which of `ids` are indexed and visible under `visibility` (one keyed lookup per chunk, the
 * visibility in the WHERE clause as for runList): what a renderer needs to link only to concepts
 * the reader may see.
 */
export function runVisibleIds(
  cache: StatementCache,
  ids: readonly string[],
  visibility: ListQuery["visibility"],
): Set<string> {
  const out = new Set<string>();
  const vis = visibilitySql(visibility, "c");
  for (let i = 0; i < ids.length; i += VISIBLE_IDS_CHUNK) {
    const chunk = ids.slice(i, i + VISIBLE_IDS_CHUNK);
    const marks = chunk.map(() => "?").join(", ");
    const rows = cache
      .get(`SELECT c.id FROM concepts c WHERE c.id IN (${marks}) AND ${vis.sql}`)
      .all(...chunk, ...vis.params) as { id: string }[];
    for (const r of rows) out.add(r.id);
  }
  return out;
}

const VISIBLE_IDS_CHUNK = 200;
