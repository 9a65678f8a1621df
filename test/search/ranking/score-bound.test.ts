/**
 * The bm25 upper bound (score-bound.ts) and the ranker it lets search skip: no row
 * ever scores above the bound, and a word ranker whose bound is under the page's cut is never
 * run — with the answer still that of ranking every match.
 */
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { VISIBLE_ALL } from "../../../src/kb/core/types.js";
import { bm25Bound, readVarint } from "../../../src/search/ranking/score-bound.js";
import { type Ranker, topRanked } from "../../../src/search/ranking/top-ranked.js";
import { TRUE_SQL } from "../../../src/search/sql-fragment.js";
import { openSearchIndex, type SqliteSearchIndex } from "../../../src/search/sqlite-index.js";
import { StatementCache } from "../../../src/search/statement-cache.js";
import { useTempDirs } from "../../support/temp-dir.js";
import { doc } from "../docs.js";

const WORDS = ["gateway", "router", "backup", "restores", "vpn", "alert", "latency", "disk"];

function corpus() {
  let s = 11;
  const r = () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
  const pick = () => WORDS[Math.floor(r() * WORDS.length)] as string;
  return Array.from({ length: 400 }, (_, i) =>
    doc(`m/c${String(i).padStart(3, "0")}`, {
      frontmatter: {
        type: "note",
        // Every 10th title names a gateway: the trigram ranker fills a short page with them.
        title: i % 10 === 0 ? `Gateway ${i}` : `${pick()} ${pick()}`,
        tags: [pick()],
      },
      body: Array.from({ length: 3 + Math.floor(r() * 60) }, pick).join(" "),
    }),
  );
}

const newDir = useTempDirs("carto-bound-", "file");
let dir: string;
let index: SqliteSearchIndex;
let db: Database.Database;
const executed: string[] = [];
let cache: StatementCache;

beforeAll(() => {
  dir = newDir();
  index = openSearchIndex(join(dir, "index.db"));
  index.reconcile(corpus());
  // Deleted rows (tombstones) must count neither in N nor in a phrase's hits.
  index.remove("m/c001");
  index.remove("m/c002");
  db = new Database(join(dir, "index.db"), { readonly: true });
  cache = new StatementCache(db);
  const get = cache.get.bind(cache);
  cache.get = (sql: string) => {
    executed.push(sql);
    return get(sql);
  };
});
afterAll(() => {
  db?.close();
  index?.close();
});

const WORD_RANK = "-bm25(concepts_fts, 4.0, 8.0, 3.0, 1.0)";
const TRI_RANK = "-bm25(concepts_tri, 4.0, 8.0, 3.0)";
const q = (t: string, star = "") => `"${t}"${star}`;

describe("readVarint", () => {
  it("reads SQLite varints of 1, 2, 3 and 9 bytes", () => {
    expect(readVarint(Uint8Array.from([0x05]))).toBe(5);
    expect(readVarint(Uint8Array.from([0x81, 0x00]))).toBe(128);
    expect(readVarint(Uint8Array.from([0x86, 0xc3, 0x17]))).toBe(106_903);
    expect(
      readVarint(Uint8Array.from([0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x07])),
    ).toBe(7);
  });
});

describe("bm25Bound", () => {
  const cases: Array<[string, "concepts_fts" | "concepts_tri", string[], string]> = [
    ["one word", "concepts_fts", [q("gateway")], WORD_RANK],
    ["prefix", "concepts_fts", [q("rest", "*")], WORD_RANK],
    ["two words", "concepts_fts", [q("backup"), q("latency")], WORD_RANK],
    ["substring", "concepts_tri", [q("atew")], TRI_RANK],
    ["two substrings", "concepts_tri", [q("gate"), q("out")], TRI_RANK],
  ];
  for (const [name, table, phrases, rank] of cases) {
    it(`is above every row's score: ${name}`, () => {
      for (const op of [" AND ", " OR "]) {
        const scores = db
          .prepare(`SELECT ${rank} AS s FROM ${table} WHERE ${table} MATCH ?`)
          .pluck()
          .all(phrases.join(op)) as number[];
        const bound = bm25Bound(cache, table, phrases, () => false);
        expect(scores.length).toBeGreaterThan(0);
        // Tight enough to be useful: the best row reaches more than half of it.
        expect(Math.max(...scores)).toBeLessThan(bound);
        expect(Math.max(...scores)).toBeGreaterThan(bound / 2);
      }
    });
  }

  it("reads a row count from FTS5's averages record no smaller than the concepts'", () => {
    const block = db.prepare("SELECT block FROM concepts_fts_data WHERE id = 1").pluck().get();
    const concepts = db.prepare("SELECT count(*) FROM concepts").pluck().get() as number;
    expect(concepts).toBe(398);
    // Inserts counted; FTS5 may keep deleted rows in it until a merge (a larger N: still a bound).
    expect(readVarint(block as Buffer)).toBeGreaterThanOrEqual(concepts);
    expect(readVarint(block as Buffer)).toBeLessThanOrEqual(400);
  });
});

describe("topRanked with a ranker that cannot reach the page", () => {
  const rankers = (word: string): Ranker[] => [
    { table: "concepts_tri", rank: TRI_RANK, match: q(word), phrases: [q(word)], allTerms: true },
    {
      table: "concepts_fts",
      rank: WORD_RANK,
      match: q(word, "*"),
      phrases: [q(word, "*")],
      allTerms: true,
    },
  ];
  const wordRuns = () => executed.filter((s) => s.includes("concepts_fts MATCH ? ORDER BY"));

  it("skips the word ranker when the trigram hits fill the page above its bound", () => {
    executed.length = 0;
    const top = topRanked(cache, rankers("gateway"), [TRUE_SQL], 5);
    expect(wordRuns()).toHaveLength(0);
    const ids = index.search({ query: "gateway", limit: 5, visibility: VISIBLE_ALL });
    expect(top?.map((t) => t.rowid)).toHaveLength(5);
    // Same answer as ranking every match of both indexes.
    const full = db
      .prepare(
        `WITH m(rowid, score) AS MATERIALIZED (SELECT rowid, ${WORD_RANK} FROM concepts_fts WHERE concepts_fts MATCH ? ` +
          `UNION ALL SELECT rowid, ${TRI_RANK} FROM concepts_tri WHERE concepts_tri MATCH ?) ` +
          "SELECT c.id FROM m JOIN concepts c ON c.rowid = m.rowid GROUP BY c.rowid ORDER BY max(m.score) DESC, c.id LIMIT 5",
      )
      .pluck()
      .all(`${q("gateway")}*`, q("gateway"));
    expect(ids.results.map((h) => h.id)).toEqual(full);
  });

  it("runs it when the page is longer than the trigram hits", () => {
    executed.length = 0;
    const triHits = db
      .prepare(`SELECT count(*) FROM concepts_tri WHERE concepts_tri MATCH '"gateway"'`)
      .pluck()
      .get() as number;
    expect(topRanked(cache, rankers("gateway"), [TRUE_SQL], triHits + 1)).not.toBeNull();
    expect(wordRuns()).toHaveLength(1);
  });
});
