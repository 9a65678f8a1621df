/**
 * The search memories of an index file (trigram and word rankers): built on a worker once asked,
 * used by searches only while they match the data (answers identical to an index that never
 * builds one), unused from the first write on until rebuilt, and declined for a KB with a title
 * (trigram and word memories) or a letter in a body (the word memory) outside ASCII.
 */
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { VISIBLE_ALL } from "../../src/kb/core/types.js";
import { memoryBuildsRunning } from "../../src/search/memory-build.js";
import { openSearchIndex, type SqliteSearchIndex } from "../../src/search/sqlite-index.js";
import { useTempDirs } from "../support/temp-dir.js";
import { doc } from "./docs.js";

const newDir = useTempDirs("carto-trigram-accel-");
let index: SqliteSearchIndex;
let plain: SqliteSearchIndex;
afterEach(() => {
  index?.close();
  plain?.close();
});

const NAMES = ["primary", "gateway", "replica", "router", "backup"];
const MAPS = ["ops", "dev", "lab"];
const concept = (i: number, title?: string) =>
  doc(`${MAPS[i % 3]}/${NAMES[i % 5]}-${i}`, {
    frontmatter: {
      type: i % 2 ? "note" : "runbook",
      title: title ?? `${NAMES[(i * 3) % 5]} ${NAMES[(i * 7) % 5]} node ${i}`,
      tags: [NAMES[(i * 2) % 5] as string],
    },
    body: `notes on ${NAMES[(i * 4) % 5]} and more`,
  });
const QUERIES = ["primary", "gateway", "prim", "ateway node", "backup router", "replica", "nod"];
/** Queries only the word ranker answers (body words, too short for trigrams, or a prefix). */
const WORD_QUERIES = ["notes", "more", "and notes", "mo", "notes more zebra", "no"];

async function until(what: () => boolean, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!what()) {
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

const answers = (ix: SqliteSearchIndex) =>
  [...QUERIES, ...WORD_QUERIES].map((query) =>
    JSON.stringify(ix.search({ query, limit: 7, visibility: VISIBLE_ALL })),
  );

function open(): void {
  const file = path.join(newDir(), "index.db");
  index = openSearchIndex(file, {
    searchMemory: { minRows: 50, quietMs: 50, minGapMs: 0, gapFactor: 0 },
  });
  index.reconcile(Array.from({ length: 300 }, (_, i) => concept(i)));
  // A second connection to the same file that never builds a memory: the FTS5 answers.
  plain = openSearchIndex(file, { searchMemory: { minRows: Number.POSITIVE_INFINITY } });
}

describe("search memories of an index file", () => {
  it("answers exactly as FTS5 once built on a worker, and is used", async () => {
    open();
    expect(index.searchMemory().state).toBe("off");
    index.warmSearch();
    await until(() => index.searchMemory().state === "ready");
    expect(index.searchMemory().bytes).toBeGreaterThan(0);
    expect(answers(index)).toEqual(answers(plain));
    // One-term queries rank trigrams from memory; all-terms ones stay in FTS5 (search-query.ts).
    const oneTerm = QUERIES.filter((q) => !q.includes(" ")).length;
    expect(index.searchMemory().served).toBeGreaterThanOrEqual(oneTerm);
  });

  it("builds the word memory next, answering word queries exactly as FTS5 from it", async () => {
    open();
    index.warmSearch();
    await until(() => index.searchMemory().words.state === "ready");
    expect(index.searchMemory().words.bytes).toBeGreaterThan(0);
    const before = index.searchMemory().served;
    const wordOnly = WORD_QUERIES.map((query) =>
      JSON.stringify(index.search({ query, limit: 7, visibility: VISIBLE_ALL })),
    );
    // Every word query ranks its words from memory; the two-letter ones have no trigram ranker.
    expect(index.searchMemory().served - before).toBeGreaterThanOrEqual(WORD_QUERIES.length);
    expect(wordOnly).toEqual(
      WORD_QUERIES.map((query) =>
        JSON.stringify(plain.search({ query, limit: 7, visibility: VISIBLE_ALL })),
      ),
    );
    expect(answers(index)).toEqual(answers(plain));
  });

  it("ranks filtered searches from memory too, keeping only what the filters keep", async () => {
    open();
    index.warmSearch();
    await until(() => index.searchMemory().words.state === "ready");
    const filtered = [
      { visibility: { all: false, rules: [{ maps: ["dev"], journals: [], types: [] }] } },
      {
        visibility: {
          all: false,
          rules: [{ maps: ["ops", "lab"], journals: [], types: ["note"] }],
        },
      },
      { visibility: { all: false, rules: [] } },
      { visibility: VISIBLE_ALL, scope: "lab" },
      {
        visibility: { all: false, rules: [{ maps: [], journals: [], types: ["runbook"] }] },
        scope: "ops",
      },
    ] as const;
    const page = (ix: SqliteSearchIndex) =>
      filtered.flatMap((f) =>
        [...QUERIES, ...WORD_QUERIES].map((query) =>
          JSON.stringify(ix.search({ query, limit: 7, ...f, visibility: f.visibility as never })),
        ),
      );
    const before = index.searchMemory().served;
    const mine = page(index);
    expect(index.searchMemory().served - before).toBeGreaterThan(
      filtered.length * WORD_QUERIES.length,
    );
    expect(mine).toEqual(page(plain));
    // Each filter kept something, and hid something.
    expect(mine.filter((p) => p.includes('"results":[]')).length).toBeLessThan(mine.length / 2);
  });

  it("serves through this connection's writes, the changed concepts read anew", async () => {
    open();
    index.warmSearch();
    await until(() => index.searchMemory().words.state === "ready");
    index.upsert(concept(1000, "Primary zebra")); // a new concept
    index.upsert(concept(7, "Gateway zebra replica")); // one changed
    index.remove(concept(8).id); // one gone
    const served = index.searchMemory().served;
    const zebra = index.search({ query: "zebra primary", limit: 5, visibility: VISIBLE_ALL });
    expect(zebra.results.map((h) => h.id)).toEqual([concept(1000).id]);
    expect(answers(index)).toEqual(answers(plain));
    // A changed concept is deleted and inserted again: its old rowid and its new one.
    expect(index.searchMemory()).toMatchObject({ state: "ready", changed: 4 });
    expect(index.searchMemory().served).toBeGreaterThan(served); // from memory, not FTS5
  });

  it("gives FTS5's answers through a run of random writes", async () => {
    open();
    index.warmSearch();
    await until(() => index.searchMemory().words.state === "ready");
    let seed = 3;
    const next = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const served = index.searchMemory().served;
    for (let step = 0; step < 40; step++) {
      const i = next(400);
      if (next(3) === 0) index.remove(concept(i).id);
      else index.upsert(concept(i, `${NAMES[next(5)]} ${NAMES[next(5)]} step ${step}`));
      const query = [...QUERIES, ...WORD_QUERIES, "step"][next(QUERIES.length + 7)] as string;
      const ask = (ix: SqliteSearchIndex) =>
        JSON.stringify(ix.search({ query, limit: 7, visibility: VISIBLE_ALL }));
      expect(ask(index), `step ${step}: ${query}`).toEqual(ask(plain));
    }
    expect(index.searchMemory().served - served).toBeGreaterThanOrEqual(40);
  });

  it("is unused after another connection's commit or a rebuild of the tables, then rebuilt", async () => {
    open();
    index.warmSearch();
    await until(() => index.searchMemory().words.state === "ready");
    plain.upsert(concept(1000, "Primary zebra")); // not this connection's: not in its log
    const served = index.searchMemory().served;
    expect(answers(index)).toEqual(answers(plain));
    expect(index.searchMemory().served).toBe(served); // stale: FTS5 answered
    await until(() => index.searchMemory().words.state === "ready");
    expect(answers(index)).toEqual(answers(plain));
    // Replacing every row drops the tables and their triggers: the log cannot be trusted.
    index.replaceAll(Array.from({ length: 300 }, (_, i) => ({ doc: concept(i + 5000) })));
    const again = index.searchMemory().served;
    expect(answers(index)).toEqual(answers(plain));
    expect(index.searchMemory().served).toBe(again);
    await until(() => index.searchMemory().words.state === "ready");
    expect(answers(index)).toEqual(answers(plain));
    expect(index.searchMemory().served).toBeGreaterThan(again);
  });

  it("declines a KB whose memory would pass the process's budget for all KBs", async () => {
    open();
    index.warmSearch();
    await until(() => index.searchMemory().state === "ready");
    const held = index.searchMemory().bytes;
    const second = openSearchIndex(path.join(newDir(), "index.db"), {
      searchMemory: {
        minRows: 50,
        quietMs: 50,
        minGapMs: 0,
        gapFactor: 0,
        budgetBytes: held + 1024,
      },
    });
    try {
      second.reconcile(Array.from({ length: 300 }, (_, i) => concept(i)));
      second.warmSearch();
      await until(() => second.searchMemory().state === "declined");
      expect(second.searchMemory()).toMatchObject({ state: "declined", served: 0 });
      expect(answers(second)).toEqual(answers(plain));
    } finally {
      second.close();
    }
  });

  it("builds one memory at a time in a process, however many KBs ask", async () => {
    const indexes = [0, 1, 2].map(() => {
      const ix = openSearchIndex(path.join(newDir(), "index.db"), {
        searchMemory: { minRows: 50, quietMs: 0, minGapMs: 0, gapFactor: 0 },
      });
      ix.reconcile(Array.from({ length: 400 }, (_, i) => concept(i)));
      return ix;
    });
    try {
      let most = 0;
      for (const ix of indexes) ix.warmSearch();
      await until(() => {
        most = Math.max(most, memoryBuildsRunning());
        return indexes.every((ix) => ix.searchMemory().state === "ready");
      });
      expect(most).toBe(1);
    } finally {
      for (const ix of indexes) ix.close();
    }
  });

  it("declines a KB with a title outside ASCII, answering from FTS5", async () => {
    open();
    index.upsert(concept(2000, "Café primary"));
    index.warmSearch();
    await until(() => index.searchMemory().state === "declined");
    expect(index.searchMemory()).toMatchObject({ state: "declined", served: 0 });
    expect(answers(index)).toEqual(answers(plain));
    expect(index.searchMemory().served).toBe(0);
  });

  it("declines the word memory for a letter outside ASCII, keeping the trigram memory", async () => {
    open();
    // Folded, "café" is ASCII and the dash a separator (SQLite's tokenizer says so); "ß" is a letter.
    const body = "un café — die straße, notes";
    index.upsert(doc("ops/cafe", { frontmatter: { type: "note", title: "Cafe" }, body }));
    index.warmSearch();
    await until(() => index.searchMemory().words.state === "declined");
    expect(index.searchMemory()).toMatchObject({ state: "ready", words: { bytes: 0 } });
    expect(answers(index)).toEqual(answers(plain));
    const cafe = index.search({ query: "cafe", limit: 5, visibility: VISIBLE_ALL });
    expect(cafe.results.map((h) => h.id)).toEqual(["ops/cafe"]);
    // Two-letter terms have no trigram ranker, and the word ranker now ranks in FTS5.
    const served = index.searchMemory().served;
    for (const query of ["mo", "no"]) index.search({ query, limit: 5, visibility: VISIBLE_ALL });
    expect(index.searchMemory().served).toBe(served);
  });
});
