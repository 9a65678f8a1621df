/**
 * The capped proof that a ranker cannot reach the page (src/search/ranking/below-cut.ts): it
 * decides exactly as the whole bm25 bound does, for every cut, while counting only part of a
 * common word's matches; and searches that rely on it answer what ranking every match answers,
 * also for a principal who sees one map only.
 */
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { VISIBLE_ALL, type Visibility } from "../../../src/kb/core/types.js";
import { cannotReach } from "../../../src/search/ranking/below-cut.js";
import { bm25Bound, type FtsTable } from "../../../src/search/ranking/score-bound.js";
import { openSearchIndex, type SqliteSearchIndex } from "../../../src/search/sqlite-index.js";
import { StatementCache } from "../../../src/search/statement-cache.js";
import { useTempDirs } from "../../support/temp-dir.js";
import { doc } from "../docs.js";

const RARE = ["gateway", "router", "backup", "vpn", "alert", "latency", "disk", "quota"];

/** 600 concepts in two maps: `the` in all, `primary` in ~70%, `backs` in ~half, rare words. */
function corpus() {
  let s = 5;
  const r = () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
  const pick = () => RARE[Math.floor(r() * RARE.length)] as string;
  return Array.from({ length: 600 }, (_, i) => {
    const words = ["the", ...Array.from({ length: 2 + Math.floor(r() * 50) }, pick)];
    if (r() < 0.7) words.push("primary");
    if (r() < 0.5) words.push("backs");
    // A few short concepts say a common word many times: the best word-ranker rows.
    if (i % 97 === 0) words.push("primary", "primary", "the", "the", "backs", "backs");
    return doc(`${i % 3 === 0 ? "a" : "b"}/c${String(i).padStart(3, "0")}`, {
      frontmatter: {
        type: "note",
        // Every 20th title holds a common word: the trigram ranker's few hits for it.
        title: i % 20 === 0 ? `Primary the backs ${i}` : `${pick()} ${pick()}`,
      },
      body: words.sort(() => r() - 0.5).join(" "),
    });
  });
}

const newDir = useTempDirs("carto-below-cut-", "file");
let index: SqliteSearchIndex;
let db: Database.Database;
let cache: StatementCache;
const executed: string[] = [];

beforeAll(() => {
  const file = join(newDir(), "index.db");
  index = openSearchIndex(file, { offThread: false });
  index.reconcile(corpus());
  index.remove("a/c003"); // a tombstone: counted neither in the phrase hits nor skipped wrongly
  db = new Database(file, { readonly: true });
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
const wholeCounts = () =>
  executed.filter((sql) => /^SELECT count\(\*\) FROM concepts_fts WHERE/.test(sql)).length;

describe("cannotReach", () => {
  const cases: Array<[string, FtsTable, string[]]> = [
    ["a word in every concept", "concepts_fts", ['"the"']],
    ["a common word", "concepts_fts", ['"primary"']],
    ["a prefix of a common word", "concepts_fts", ['"back"*']],
    ["a rare and a common word", "concepts_fts", ['"gateway"', '"primary"']],
    ["three words", "concepts_fts", ['"the"', '"backs"', '"vpn"']],
    ["a substring", "concepts_tri", ['"rima"']],
  ];
  for (const [name, table, phrases] of cases) {
    it(`decides as the whole bound does at every cut: ${name}`, () => {
      const exact = bm25Bound(cache, table, phrases, () => false);
      expect(exact).toBeGreaterThan(0);
      for (let k = 0; k <= 60; k++) {
        const cut = (exact * k) / 40;
        expect(cannotReach(cache, table, phrases, cut), `cut ${cut}`).toBe(exact < cut);
      }
      for (const cut of [exact, exact * (1 - 1e-12), exact * (1 + 1e-12)])
        expect(cannotReach(cache, table, phrases, cut)).toBe(exact < cut);
    });
  }

  it("proves a common word below a cut without counting all of its matches", () => {
    const exact = bm25Bound(cache, "concepts_fts", ['"the"'], () => false);
    executed.length = 0;
    expect(cannotReach(cache, "concepts_fts", ['"the"'], exact * 50)).toBe(true);
    expect(wholeCounts()).toBe(0);
    // A prefix is proved from one of its tokens, counted alone.
    const prefix = bm25Bound(cache, "concepts_fts", ['"back"*'], () => false);
    executed.length = 0;
    expect(cannotReach(cache, "concepts_fts", ['"back"*'], prefix * 2)).toBe(true);
    expect(wholeCounts()).toBe(0);
    expect(executed.some((sql) => sql.includes("LIMIT ?)"))).toBe(true);
  });
});

describe("searches whose word ranker is skipped or run on a capped proof", () => {
  const oneMap: Visibility = { all: false, rules: [{ maps: ["a"], journals: [], types: [] }] };

  /** Every match of both indexes ranked, the page cut after: what search must answer. */
  function exhaustive(word: string, prefix: boolean, limit: number, map?: string): string[] {
    return db
      .prepare(
        `WITH m(rowid, score) AS MATERIALIZED (SELECT rowid, ${WORD_RANK} FROM concepts_fts WHERE concepts_fts MATCH ? ` +
          `UNION ALL SELECT rowid, ${TRI_RANK} FROM concepts_tri WHERE concepts_tri MATCH ?) ` +
          "SELECT c.id FROM m JOIN concepts c ON c.rowid = m.rowid WHERE c.map = coalesce(?, c.map) " +
          "GROUP BY c.rowid ORDER BY max(m.score) DESC, c.id LIMIT ?",
      )
      .pluck()
      .all(`"${word}"${prefix ? "*" : ""}`, `"${word}"`, map ?? null, limit) as string[];
  }

  it("answer what ranking every match answers, at every page size", () => {
    let wordRows = 0;
    for (const [word, prefix] of [
      ["the", false],
      ["primary", false],
      ["back", true],
    ] as const) {
      const inTitles = new Set(
        db
          .prepare(
            "SELECT c.id FROM concepts_tri JOIN concepts c ON c.rowid = concepts_tri.rowid WHERE concepts_tri MATCH ?",
          )
          .pluck()
          .all(`"${word}"`) as string[],
      );
      for (const limit of [1, 5, 10, 29, 30, 31, 40, 100]) {
        for (const [visibility, map] of [
          [VISIBLE_ALL, undefined],
          [oneMap, "a"],
        ] as const) {
          const got = index.search({ query: word, limit, visibility }).results.map((h) => h.id);
          const want = exhaustive(word, prefix, limit, map);
          expect(got, `${word} ${limit} ${map ?? "all"}`).toEqual(want);
          wordRows += got.filter((id) => !inTitles.has(id)).length;
        }
      }
    }
    // Pages past the trigram hits hold word-ranker rows: a wrong skip would have dropped them.
    expect(wordRows).toBeGreaterThan(100);
  });
});

describe("a word-ranker row above trigram hits that fill the page", () => {
  it("is ranked, not skipped (the bound reaches the cut)", () => {
    const small = openSearchIndex(":memory:", { offThread: false });
    try {
      const filler = (i: number) => `alpha beta gamma delta ${"epsilon ".repeat(i)}`;
      small.reconcile([
        // Long titles holding the word: many trigram hits, each scoring low.
        ...Array.from({ length: 8 }, (_, i) =>
          doc(`m/t${i}`, { frontmatter: { type: "note", title: `Gateway ${filler(20 + i)}` } }),
        ),
        // A short concept saying it often in its body only: the word ranker's best row.
        doc("m/body", { frontmatter: { type: "note", title: "Edge" }, body: "gateway ".repeat(6) }),
        ...Array.from({ length: 40 }, (_, i) =>
          doc(`m/o${i}`, { frontmatter: { type: "note", title: `Other ${i}` }, body: filler(i) }),
        ),
      ]);
      const got = small.search({ query: "gateway", limit: 5, visibility: VISIBLE_ALL });
      expect(got.results).toHaveLength(5);
      expect(got.results[0]?.id).toBe("m/body");
    } finally {
      small.close();
    }
  });
});
