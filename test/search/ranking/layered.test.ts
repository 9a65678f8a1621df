/**
 * The memories of a snapshot with the concepts changed since read anew beside them give FTS5's
 * bm25 scores bit for bit on the data as it now stands: every matching row of the trigram and
 * the word ranker, after new, changed and removed concepts (the change log names them). A
 * prefix the view matches as one token gives the same rows and scores as the prefix itself.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { ConceptDoc } from "../../../src/kb/core/types.js";
import { ChangeLog } from "../../../src/search/change-log.js";
import { layeredView } from "../../../src/search/memory-view.js";
import { readTotals } from "../../../src/search/ranking/bm25-memory.js";
import {
  buildTrigramArrays,
  TRIGRAM_ROWS_SQL,
  TrigramMemory,
  type TrigramRow,
} from "../../../src/search/ranking/trigram-memory.js";
import { rankInMemory } from "../../../src/search/ranking/trigram-rank.js";
import { rankWords, WordMemory } from "../../../src/search/ranking/word-memory.js";
import { BM25_WEIGHTS, TRI_WEIGHTS } from "../../../src/search/schema.js";
import { openSeparatorProbe } from "../../../src/search/separator-probe.js";
import { openSearchIndex, type SqliteSearchIndex } from "../../../src/search/sqlite-index.js";
import { StatementCache } from "../../../src/search/statement-cache.js";
import { readWordArrays } from "../../../src/search/word-build.js";
import { doc } from "../docs.js";
import { expectSameScores, ftsScores } from "./fts-scores.js";

let index: SqliteSearchIndex;
afterEach(() => index?.close());

const WEIGHTS = [...BM25_WEIGHTS];
const WORDS = ["Backup", "restore", "restores", "primary", "gateway", "db-01", "the", "zebra—x"];

/** Ids, titles and tags in ASCII (the trigram memory's rule); bodies with a separator beyond. */
function concept(i: number, salt = 0): ConceptDoc {
  const word = (k: number) => WORDS[(i * 7 + k * 3 + salt) % WORDS.length] as string;
  const ascii = (k: number) => word(k).replace("—", "-");
  return doc(`m${i % 3}/${ascii(0).toLowerCase().replace(/\W/g, "")}-${i}`, {
    frontmatter: { type: "note", title: `${ascii(1)} ${ascii(2)}`, tags: [ascii(3).toLowerCase()] },
    body: Array.from({ length: (i + salt) % 17 }, (_, k) => word(k + 4)).join(" "),
  });
}

describe("a snapshot's memories with changed concepts beside them", () => {
  it("score every match as FTS5 does on the data now, bit for bit", () => {
    index = openSearchIndex(":memory:");
    index.reconcile(Array.from({ length: 900 }, (_, i) => concept(i)));
    const db = index.database();
    const cache = new StatementCache(db);
    const trigrams = new TrigramMemory(
      buildTrigramArrays(
        db.prepare(TRIGRAM_ROWS_SQL).raw().all() as TrigramRow[],
        1 << 22,
      ) as never,
    );
    const words = new WordMemory(
      readWordArrays(db, { weights: WEIGHTS, maxBytes: 1 << 24 }) as never,
    );
    const log = new ChangeLog(db, cache);
    log.ensure();
    const head = log.head();
    for (let i = 900; i < 960; i++) index.upsert(concept(i)); // new
    for (let i = 0; i < 900; i += 9) index.upsert(concept(i, 5)); // changed
    for (let i = 4; i < 900; i += 13) index.remove(concept(i).id); // gone
    const changed = log.since(head, 10_000) ?? [];
    expect(changed.length).toBeGreaterThan(200);
    const probe = openSeparatorProbe();
    const view = layeredView(cache, { trigrams, words }, changed, {
      maxTextBytes: 1 << 22,
      words: { weights: WEIGHTS, maxBytes: 1 << 24 },
      isSeparator: (cp) => probe.isSeparator(cp),
    });
    probe.close();
    if (!view?.words) throw new Error("expected a layered view with words");
    const ln = (x: number) => db.prepare("SELECT ln(?)").pluck().get(x) as number;
    const totals = (table: string, columns: number) =>
      readTotals(
        db.prepare(`SELECT block FROM ${table}_data WHERE id = 1`).pluck().get() as Buffer,
        columns,
      );
    let compared = 0;
    for (const [terms, allTerms] of [
      [["primary"], true],
      [["gateway", "restore"], false],
      [["zebra"], true],
    ] as const) {
      const match = terms.map((t) => `"${t}"`).join(allTerms ? " AND " : " OR ");
      const query = { terms, allTerms, weights: TRI_WEIGHTS };
      const got = rankInMemory(view.trigrams, query, totals("concepts_tri", 3), ln, 1e9);
      compared += expectSameScores(got, ftsScores(db, "concepts_tri", TRI_WEIGHTS, match), match);
    }
    for (const [phrases, allTerms] of [
      [[{ text: "backup", prefix: false }], true],
      [
        [
          { text: "the", prefix: false },
          { text: "rest", prefix: true },
        ],
        true,
      ],
      [
        [
          { text: "zebra", prefix: false },
          { text: "01", prefix: false },
        ],
        false,
      ],
      [[{ text: "gate", prefix: true }], true],
    ] as const) {
      const match = phrases
        .map((p) => `"${p.text}"${p.prefix ? "*" : ""}`)
        .join(allTerms ? " AND " : " OR ");
      const query = { phrases, allTerms, weights: WEIGHTS };
      const got = rankWords(view.words, query, totals("concepts_fts", 4), ln, 1e9);
      compared += expectSameScores(got, ftsScores(db, "concepts_fts", WEIGHTS, match), match);
    }
    expect(compared).toBeGreaterThan(1000);
    // A prefix the view matches as one token: the same rows and scores as the prefix.
    for (const text of ["gate", "zeb", "prim", "rest", "back", "x"]) {
      const token = view.words.exactToken(text);
      if (token === undefined) continue;
      const asPrefix = ftsScores(db, "concepts_fts", WEIGHTS, `"${text}"*`);
      expect(ftsScores(db, "concepts_fts", WEIGHTS, `"${token}"`), text).toEqual(asPrefix);
    }
    expect(view.words.exactToken("rest")).toBeUndefined(); // restore, restores
    // The counts the skip bound uses are at most FTS5's (a smaller count keeps it a bound).
    const count = (match: string) =>
      db.prepare("SELECT count(*) FROM concepts_fts WHERE concepts_fts MATCH ?").pluck().get(match);
    const phrases = ["backup", "the", "zebra", "primary"].map((text) => ({ text, prefix: false }));
    const atMost = view.counts?.(phrases) ?? [];
    expect(atMost).toHaveLength(phrases.length);
    for (const [i, p] of phrases.entries())
      expect(atMost[i]).toBeLessThanOrEqual(count(`"${p.text}"`) as number);
    expect(
      atMost.some((n, i) => n > 0 && n >= (count(`"${phrases[i]?.text}"`) as number) - 200),
    ).toBe(true);
  });
});
