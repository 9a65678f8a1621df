/**
 * Search answers exactly what a straightforward full ranking answers (docs/decisions.md "Keyword
 * ranking stays FTS5's exact bm25 over every match"): every word and trigram match scored, the
 * larger of a concept's two scores kept, best first, equal scores by id, visibility and scope in
 * the WHERE before the LIMIT. The fast paths (each ranker's own top rows, a ranker skipped below the page's cut, ids
 * fetched for ties only, the page read last) must never change a hit, its order or the `match` kind — on a generated
 * index full of equal scores, prefixes, substrings of ids and titles, and filters.
 */

import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Visibility } from "../../../src/kb/core/types.js";
import { VISIBLE_ALL } from "../../../src/kb/core/types.js";
import { type Ranker, topRanked } from "../../../src/search/ranking/top-ranked.js";
import { openSearchIndex, type SqliteSearchIndex } from "../../../src/search/sqlite-index.js";
import { StatementCache } from "../../../src/search/statement-cache.js";
import { useTempDirs } from "../../support/temp-dir.js";
import { doc } from "../docs.js";

const WORDS = ["gateway", "gateways", "gate", "router", "routing", "backup", "restores", "vpn"];
const MAPS = ["ops", "net", "dev"];
const TYPES = ["note", "runbook", "service"];

/** Deterministic LCG, so a failure names a reproducible query. */
function rng(seed: number) {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
}

/**
 * 600 concepts: many exact twins (runs of equal scores longer and shorter than the rankers'
 * windows), words sharing prefixes, ids and titles holding a query word inside another word.
 */
function corpus() {
  const r = rng(16);
  const pick = <T>(a: readonly T[]) => a[Math.floor(r() * a.length)] as T;
  const docs = [];
  for (let i = 0; i < 600; i++) {
    const map = MAPS[i % 3] as string;
    const twin = i % 4 === 0; // every fourth concept: the same text as its twins
    const title = twin ? "Gateway notes" : `${pick(WORDS)} ${pick(WORDS)}`;
    const body = twin
      ? "the gateway forwards packets to the router"
      : Array.from({ length: 5 + Math.floor(r() * 30) }, () =>
          pick([...WORDS, "x", "y", "z"]),
        ).join(" ");
    const name = i % 7 === 0 ? `my${pick(WORDS)}x-${i}` : `c${String(i).padStart(3, "0")}`;
    docs.push(
      doc(`${map}/${name}`, {
        frontmatter: {
          type: TYPES[i % 3] as string,
          title,
          ...(i % 5 === 0 ? { tags: [pick(WORDS)] } : {}),
        },
        body,
      }),
    );
  }
  return docs;
}

const newDir = useTempDirs("carto-rank-", "file");
let dir: string;
let index: SqliteSearchIndex;
let db: Database.Database;

beforeAll(() => {
  dir = newDir();
  index = openSearchIndex(join(dir, "index.db"));
  index.reconcile(corpus());
  db = new Database(join(dir, "index.db"), { readonly: true });
});
afterAll(() => {
  db?.close();
  index?.close();
});

const quoted = (t: string) => `"${t.replace(/"/g, '""')}"`;

/** SQL for a visibility (maps and types only here) and a scope, written out independently. */
function filterSql(visibility: Visibility, scope?: string): { sql: string; params: unknown[] } {
  const parts: string[] = [];
  const params: unknown[] = [];
  if (!visibility.all) {
    const rules = visibility.rules.map((rule) => {
      const conds: string[] = [];
      if (rule.maps.length > 0) {
        conds.push(`IFNULL(c.map IN (${rule.maps.map(() => "?").join(",")}), 0)`);
        params.push(...rule.maps);
      }
      if (rule.types.length > 0) {
        conds.push(`c.type IN (${rule.types.map(() => "?").join(",")})`);
        params.push(...rule.types);
      }
      return conds.length > 0 ? conds.join(" AND ") : "1";
    });
    parts.push(rules.length > 0 ? rules.map((x) => `(${x})`).join(" OR ") : "0");
  }
  if (scope) {
    parts.push("(c.id = ? OR c.id LIKE ?)");
    params.push(scope, `${scope}/%`);
  }
  return { sql: parts.length > 0 ? parts.map((p) => `(${p})`).join(" AND ") : "1", params };
}

/** Every match of both indexes ranked, then cut: the answer any fast path must reproduce. */
function fullRanking(
  terms: string[],
  op: "AND" | "OR",
  visibility: Visibility,
  scope: string | undefined,
  limit: number,
): string[] {
  const word = terms.map((t) => `${quoted(t)}*`).join(` ${op} `);
  const long = terms.filter((t) => t.length >= 3);
  const triTerms = op === "AND" ? (long.length === terms.length ? long : []) : long;
  const where = filterSql(visibility, scope);
  const tri =
    triTerms.length > 0
      ? "UNION ALL SELECT rowid, -bm25(concepts_tri, 4.0, 8.0, 3.0) FROM concepts_tri WHERE concepts_tri MATCH ?"
      : "";
  const sql =
    "WITH m(rowid, score) AS MATERIALIZED (" +
    `SELECT rowid, -bm25(concepts_fts, 4.0, 8.0, 3.0, 1.0) FROM concepts_fts WHERE concepts_fts MATCH ? ${tri}) ` +
    "SELECT c.id AS id, max(m.score) AS score FROM m JOIN concepts c ON c.rowid = m.rowid " +
    `WHERE ${where.sql} GROUP BY c.rowid ORDER BY score DESC, c.id LIMIT ?`;
  const params = [word, ...(tri ? [triTerms.map(quoted).join(` ${op} `)] : []), ...where.params];
  return (db.prepare(sql).all(...params, limit) as Array<{ id: string }>).map((r) => r.id);
}

/** The reference answer: all terms, then any term (2+ terms), as search documents it. */
function reference(query: string, limit: number, visibility: Visibility, scope?: string) {
  const terms = [...new Set(query.toLowerCase().split(/\s+/).filter(Boolean))];
  const all = fullRanking(terms, "AND", visibility, scope, limit);
  if (all.length > 0) return { ids: all, match: "all_terms" };
  if (terms.length >= 2) {
    const any = fullRanking(terms, "OR", visibility, scope, limit);
    if (any.length > 0) return { ids: any, match: "any_term" };
  }
  return null; // the substring fallback: not a ranking, not compared here
}

const VISIBILITIES: Visibility[] = [
  VISIBLE_ALL,
  { all: false, rules: [{ maps: ["net"], journals: [], types: [] }] },
  {
    all: false,
    rules: [
      { maps: [], journals: [], types: ["runbook"] },
      { maps: ["dev"], journals: [], types: [] },
    ],
  },
  { all: false, rules: [] },
];

function queries() {
  const r = rng(7);
  const pick = <T>(a: readonly T[]) => a[Math.floor(r() * a.length)] as T;
  const out: Array<{ query: string; limit: number; visibility: Visibility; scope?: string }> = [];
  const prefixes = ["ga", "gat", "gate", "gatew", "rout", "re", "back", "vp", "x", "my"];
  for (const query of [...WORDS, ...prefixes])
    for (const limit of [1, 2, 5, 10, 25, 60, 100])
      out.push({ query, limit, visibility: VISIBLE_ALL });
  for (let i = 0; i < 250; i++) {
    const n = 1 + Math.floor(r() * 3);
    const query = Array.from({ length: n }, () => pick([...WORDS, ...prefixes, "zzz"])).join(" ");
    out.push({
      query,
      limit: pick([1, 3, 10, 40, 100]),
      visibility: pick(VISIBILITIES),
      ...(r() < 0.25 ? { scope: pick(MAPS) } : {}),
    });
  }
  return out;
}

/** Every reference answer compared with `search`'s; returns how many were compared. */
function compareAll(search: SqliteSearchIndex["search"]): number {
  let compared = 0;
  for (const q of queries()) {
    const expected = reference(q.query, q.limit, q.visibility, q.scope);
    if (expected === null) continue;
    const got = search(q);
    expect({ q, ids: got.results.map((h) => h.id), match: got.match }).toEqual({ q, ...expected });
    compared++;
  }
  return compared;
}

describe("search ranks exactly as a full ranking of every match", () => {
  it("same hits, same order, same match kind over a varied query set", () => {
    // The set must exercise long tie runs, filters and fallbacks, not only empty answers.
    expect(compareAll((q) => index.search(q))).toBeGreaterThan(250);
  });

  it("a 2-word query ranks in order: trigram hits that fill the page skip the word ranker", () => {
    // docs/decisions.md "All-terms queries rank in order on one thread": the word ranker of
    // `gateway router` (both words in most bodies: low bm25) cannot reach trigram hits (both
    // words in a title: rare), so its ranking query never runs, and the page is still exact.
    const cache = new StatementCache(db);
    const executed: string[] = [];
    const get = cache.get.bind(cache);
    cache.get = (sql: string) => {
      executed.push(sql);
      return get(sql);
    };
    const rankers: Ranker[] = [
      {
        table: "concepts_tri",
        rank: "-bm25(concepts_tri, 4.0, 8.0, 3.0)",
        match: '"gateway" AND "router"',
        phrases: ['"gateway"', '"router"'],
        allTerms: true,
      },
      {
        table: "concepts_fts",
        rank: "-bm25(concepts_fts, 4.0, 8.0, 3.0, 1.0)",
        match: '"gateway"* AND "router"*',
        phrases: ['"gateway"*', '"router"*'],
        allTerms: true,
      },
    ];
    const limit = 3;
    const top = topRanked(cache, rankers, [], limit) ?? [];
    const ids = db.prepare("SELECT id FROM concepts WHERE rowid = ?").pluck();
    expect(top.map((r) => ids.get(r.rowid))).toEqual(
      fullRanking(["gateway", "router"], "AND", VISIBLE_ALL, undefined, limit),
    );
    expect(executed.filter((sql) => sql.includes("bm25(concepts_tri"))).toHaveLength(1);
    expect(executed.filter((sql) => sql.includes("bm25(concepts_fts"))).toEqual([]);
  });
});
