/**
 * The word ranker from memory gives FTS5's bm25 scores bit for bit, over the rows FTS5 matches:
 * every matching row of one-token and prefix phrases joined by AND or OR, compared with
 * `-bm25(concepts_fts)` on the same index, with separators outside ASCII (dashes, curly quotes,
 * arrows) in the text. Any other character outside ASCII makes the build decline; phrases the
 * memory does not answer (several tokens, a prefix of too many tokens) answer null.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { ConceptDoc } from "../../../src/kb/core/types.js";
import { exactTerms } from "../../../src/search/prefix-terms.js";
import { readTotals } from "../../../src/search/ranking/bm25-memory.js";
import {
  buildWordArrays,
  MAX_PREFIX_TOKENS,
  type WordRow,
} from "../../../src/search/ranking/word-arrays.js";
import { WordMemory } from "../../../src/search/ranking/word-memory.js";
import { BM25_WEIGHTS } from "../../../src/search/schema.js";
import { openSeparatorProbe } from "../../../src/search/separator-probe.js";
import { openSearchIndex, type SqliteSearchIndex } from "../../../src/search/sqlite-index.js";
import { StatementCache } from "../../../src/search/statement-cache.js";
import { readWordArrays } from "../../../src/search/word-build.js";
import { doc } from "../docs.js";
import { expectSameScores, ftsScores } from "./fts-scores.js";

let index: SqliteSearchIndex;
afterEach(() => index?.close());

const WEIGHTS = [...BM25_WEIGHTS];
/**
 * Upper case, digits, punctuation inside and between tokens, a token that is a prefix of others,
 * separators outside ASCII (SQLite's tokenizer says so: separator-probe.ts).
 */
const WORDS = [
  "Backup",
  "backups",
  "restore",
  "RESTORES",
  "db-01",
  "x9",
  "v2.1",
  "the",
  "a_b",
  "ops",
  "ops—backup",
  "“restore”",
  "x9→v2…",
  "✓the",
];

/** A seeded mix of ids, titles (some missing), tags and bodies of 0–40 words. */
function concepts(count: number): ConceptDoc[] {
  let seed = 11;
  const pick = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return WORDS[seed % WORDS.length] as string;
  };
  return Array.from({ length: count }, (_, i) => {
    const title = i % 7 === 0 ? undefined : [pick(), pick()].join(i % 2 ? " " : ", ");
    const tags = i % 3 === 0 ? [] : [pick().toLowerCase()];
    const body = Array.from({ length: (i * 13) % 41 }, pick).join(i % 5 ? " " : ".\n");
    return doc(`m${i % 3}/${pick().toLowerCase()}-${i}`, {
      frontmatter: { type: "note", ...(title === undefined ? {} : { title }), tags },
      body,
    });
  });
}

/** An index of `count` generated concepts, its word memory, the table's totals and SQLite's ln(). */
function indexed(count: number) {
  index = openSearchIndex(":memory:");
  index.reconcile(concepts(count));
  const db = index.database();
  const arrays = readWordArrays(db, { weights: WEIGHTS, maxBytes: 1 << 24 });
  expect(arrays).not.toBeNull();
  const memory = new WordMemory(arrays as NonNullable<typeof arrays>);
  const block = db.prepare("SELECT block FROM concepts_fts_data WHERE id = 1").pluck().get();
  const totals = readTotals(block as Buffer, 4);
  const ln = (x: number) => db.prepare("SELECT ln(?)").pluck().get(x) as number;
  return { db, memory, totals, ln };
}

type Phrase = { text: string; prefix: boolean };
const exact = (text: string): Phrase => ({ text, prefix: false });
const prefix = (text: string): Phrase => ({ text, prefix: true });

describe("word ranker in memory", () => {
  it("scores every match as FTS5's bm25 does, bit for bit", () => {
    // 3,000 rows: past the first sizes of the growing arrays (buildWordArrays).
    const { db, memory, totals, ln } = indexed(3000);
    const queries: Array<[Phrase[], boolean]> = [
      [[exact("backup")], true],
      [[exact("the")], true],
      [[exact("01")], true],
      [[prefix("back")], true],
      [[prefix("rest")], true],
      [[exact("backup"), exact("restores")], true],
      [[exact("backup"), exact("restores")], false],
      [[exact("ops"), prefix("resto"), exact("x9")], true],
      [[exact("a"), exact("b"), exact("v2")], false],
      [[exact("nowhere")], true],
      [[exact("backup"), exact("nowhere")], false],
    ];
    let compared = 0;
    for (const [phrases, allTerms] of queries) {
      const match = phrases
        .map((p) => `"${p.text}"${p.prefix ? "*" : ""}`)
        .join(allTerms ? " AND " : " OR ");
      const got = memory.rank({ phrases, allTerms, weights: WEIGHTS }, totals, ln, 1e9);
      compared += expectSameScores(got, ftsScores(db, "concepts_fts", WEIGHTS, match), match);
    }
    expect(compared).toBeGreaterThan(3000);
  });

  it("counts each phrase's rows and picks exact tokens as the index itself does", () => {
    const { db, memory } = indexed(600);
    const count = (match: string) =>
      db.prepare("SELECT count(*) FROM concepts_fts WHERE concepts_fts MATCH ?").pluck().get(match);
    const phrases = [exact("backup"), exact("the"), prefix("restores"), prefix("v"), exact("zzz")];
    const counts = memory.counts(phrases.filter((p) => p.text !== "v"));
    expect(counts).toEqual([count('"backup"'), count('"the"'), count('"restores"*'), 0]);
    expect(counts?.[0]).toBeGreaterThan(0);
    expect(memory.counts([prefix("back")])).toBeNull(); // backup, backups: a union to merge
    const terms = [
      "back",
      "backup",
      "backups",
      "rest",
      "restore",
      "the",
      "th",
      "x",
      "zzz",
      "db-01",
    ];
    const fromIndex = exactTerms(new StatementCache(db), terms);
    const fromMemory = new Map(
      terms.flatMap((t) => {
        const token = memory.exactToken(t);
        return token === undefined ? [] : [[t, token] as const];
      }),
    );
    expect(fromMemory).toEqual(fromIndex);
    expect(fromMemory.get("th")).toBe("the"); // one completion
    expect(fromMemory.has("rest")).toBe(false); // restore, restores: two
  });

  it("returns the first n by score, best first", () => {
    const { db, memory, totals, ln } = indexed(400);
    const query = { phrases: [prefix("rest")], allTerms: true, weights: WEIGHTS };
    const top = memory.rank(query, totals, ln, 7) ?? [];
    const all = [...ftsScores(db, "concepts_fts", WEIGHTS, '"rest"*').values()].sort(
      (a, b) => b - a,
    );
    expect(top).toHaveLength(7);
    expect(top.map((r) => r.score)).toEqual(all.slice(0, 7));
  });

  it("declines text outside ASCII, rows over its bound, and phrases it does not answer", () => {
    const row = (body: string): WordRow => [
      1,
      bytes("ops/a"),
      bytes("Title"),
      bytes("[]"),
      bytes(body),
    ];
    expect(buildWordArrays([row("un café")], WEIGHTS, 1 << 20)).toBeNull();
    expect(buildWordArrays([row("plain words")], WEIGHTS, 8)).toBeNull();
    expect(buildWordArrays([row("plain words")], [1, 2.5, 1, 1], 1 << 20)).toBeNull();
    const many = Array.from({ length: MAX_PREFIX_TOKENS + 1 }, (_, i) => `tok${i}`).join(" ");
    const arrays = buildWordArrays([row(many)], WEIGHTS, 1 << 20);
    const memory = new WordMemory(arrays as NonNullable<typeof arrays>);
    const totals = { rows: 1, tokens: 70 };
    const rank = (phrases: Phrase[], weights = WEIGHTS) =>
      memory.rank({ phrases, allTerms: true, weights }, totals, Math.log, 10);
    expect(rank([exact("tok1")])).toHaveLength(1);
    expect(rank([prefix("tok1")])).toHaveLength(1); // tok1, tok10…tok19: 11 tokens
    expect(rank([prefix("tok")])).toBeNull(); // 65 tokens
    expect(rank([exact("tok 1")])).toBeNull(); // two tokens: a phrase
    expect(rank([exact("café")])).toBeNull();
    expect(rank([exact("tok1")], [1, 1, 1, 1])).toBeNull(); // not the weights it summed
  });
});

describe("separators outside ASCII", () => {
  it("are the characters SQLite's word tokenizer itself splits on", () => {
    const probe = openSeparatorProbe();
    try {
      for (const c of "—–“”‘’…→•✓ ")
        expect(probe.isSeparator(c.codePointAt(0) as number), c).toBe(true);
      for (const c of "ßé日ж") expect(probe.isSeparator(c.codePointAt(0) as number), c).toBe(false);
      // What no valid UTF-8 holds is not asked of SQLite (String.fromCodePoint would throw).
      for (const cp of [0xd800, 0x110000, -1]) expect(probe.isSeparator(cp)).toBe(false);
    } finally {
      probe.close();
    }
  });

  it("let a build through; a letter outside ASCII declines it", () => {
    index = openSearchIndex(":memory:");
    const body = (text: string) => doc("ops/a", { frontmatter: { type: "note" }, body: text });
    index.reconcile([body("backup — restore “now”")]);
    const options = { weights: WEIGHTS, maxBytes: 1 << 20 };
    expect(readWordArrays(index.database(), options)?.terms).toContain("restore");
    index.upsert(body("die straße"));
    expect(readWordArrays(index.database(), options)).toBeNull();
  });
});

function bytes(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}
