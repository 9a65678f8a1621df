/**
 * The trigram ranker from memory gives FTS5's bm25 scores bit for bit, over the rows FTS5
 * matches: every matching row of each phrase (single or OR), compared with `-bm25(concepts_tri)`
 * on the same index. A field outside ASCII makes the build decline.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { ConceptDoc } from "../../../src/kb/core/types.js";
import { readTotals } from "../../../src/search/ranking/bm25-memory.js";
import {
  buildTrigramArrays,
  TRIGRAM_ROWS_SQL,
  TrigramMemory,
  type TrigramRow,
} from "../../../src/search/ranking/trigram-memory.js";
import { rankInMemory } from "../../../src/search/ranking/trigram-rank.js";
import { TRI_WEIGHTS } from "../../../src/search/schema.js";
import { openSearchIndex, type SqliteSearchIndex } from "../../../src/search/sqlite-index.js";
import { doc } from "../docs.js";
import { expectSameScores, ftsScores } from "./fts-scores.js";

let index: SqliteSearchIndex;
afterEach(() => index?.close());

const WORDS = ["Primary", "gateway", "aaaa", "aa", "rim", "Prim-ARY", "x9", "db-01", "replica"];
const TERMS = ["primary", "prim", "gateway", "aaa", "aaaa", "rim", "x9-", "db-0", "a a", "zzz"];

/** A seeded mix of ids, titles (some missing, some repeating a word) and tags. */
function concepts(count: number): ConceptDoc[] {
  let seed = 7;
  const pick = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return WORDS[seed % WORDS.length] as string;
  };
  return Array.from({ length: count }, (_, i) => {
    const words = Array.from({ length: 1 + (i % 4) }, pick);
    const title = i % 9 === 0 ? undefined : words.join(i % 2 ? " " : "");
    const tags = i % 3 === 0 ? [] : [pick(), pick().toLowerCase()];
    return doc(`m${i % 3}/${pick().toLowerCase()}-${i}`, {
      frontmatter: { type: "note", ...(title === undefined ? {} : { title }), tags },
      body: "body",
    });
  });
}

/** An index of `count` generated concepts, its memory, the table's totals and SQLite's ln(). */
function indexed(count: number) {
  index = openSearchIndex(":memory:");
  index.reconcile(concepts(count));
  const db = index.database();
  const rows = db.prepare(TRIGRAM_ROWS_SQL).raw().all() as TrigramRow[];
  const arrays = buildTrigramArrays(rows, 1 << 20);
  expect(arrays).not.toBeNull();
  const memory = new TrigramMemory(arrays as NonNullable<typeof arrays>);
  const block = db.prepare("SELECT block FROM concepts_tri_data WHERE id = 1").pluck().get();
  const totals = readTotals(block as Buffer, 3);
  const ln = (x: number) => db.prepare("SELECT ln(?)").pluck().get(x) as number;
  return { db, memory, totals, ln };
}

describe("trigram ranker in memory", () => {
  it("scores every match as FTS5's bm25 does, bit for bit", () => {
    // 2,500 rows: past the first sizes of the growing arrays (buildTrigramArrays).
    const { db, memory, totals, ln } = indexed(2500);
    const queries: Array<[string[], boolean]> = [
      ...TERMS.map((t): [string[], boolean] => [[t], true]),
      [["primary", "gateway"], false],
      [["aaaa", "rim", "db-0"], false],
    ];
    let compared = 0;
    for (const [terms, allTerms] of queries) {
      const match = terms.map((t) => `"${t}"`).join(allTerms ? " AND " : " OR ");
      const got = rankInMemory(memory, { terms, allTerms, weights: TRI_WEIGHTS }, totals, ln, 1e9);
      compared += expectSameScores(got, ftsScores(db, "concepts_tri", TRI_WEIGHTS, match), match);
    }
    expect(compared).toBeGreaterThan(500);
  });

  it("returns the first n by score, best first", () => {
    const { db, memory, totals, ln } = indexed(200);
    const query = { terms: ["prim"], allTerms: true, weights: TRI_WEIGHTS };
    const top = rankInMemory(memory, query, totals, ln, 5) ?? [];
    const all = [...ftsScores(db, "concepts_tri", TRI_WEIGHTS, '"prim"').values()].sort(
      (a, b) => b - a,
    );
    expect(top).toHaveLength(5);
    expect(top.map((r) => r.score)).toEqual(all.slice(0, 5));
  });

  it("declines fields outside ASCII, text over its bound, and terms outside ASCII", () => {
    expect(buildTrigramArrays([[1, "ops/cafe", "Café", "x"]], 1 << 20)).toBeNull();
    expect(buildTrigramArrays([[1, "ops/a", "abcdef", "x"]], 5)).toBeNull();
    const arrays = buildTrigramArrays([[1, "ops/a", "Gateway", ""]], 1 << 20);
    const memory = new TrigramMemory(arrays as NonNullable<typeof arrays>);
    const query = { terms: ["gatéway"], allTerms: true, weights: TRI_WEIGHTS };
    expect(rankInMemory(memory, query, { rows: 1, tokens: 8 }, Math.log, 10)).toBeNull();
  });
});
