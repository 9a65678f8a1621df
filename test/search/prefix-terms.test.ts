/**
 * A word-prefix term runs as an exact term only while one token alone starts with it (the term
 * itself or one longer token; prefix-terms.ts): the answer must stay what the prefix query
 * answers, also right after a write adds another such token.
 */
import { afterEach, describe, expect, it } from "vitest";
import { VISIBLE_ALL } from "../../src/kb/core/types.js";
import { completions, exactTerms } from "../../src/search/prefix-terms.js";
import { openSearchIndex, type SqliteSearchIndex } from "../../src/search/sqlite-index.js";
import { StatementCache } from "../../src/search/statement-cache.js";
import { doc } from "./docs.js";

let index: SqliteSearchIndex;
afterEach(() => index?.close());

const note = (id: string, body: string) =>
  doc(id, { frontmatter: { type: "note", title: id.split("/")[1] as string }, body });
const ids = (query: string) =>
  index
    .search({ query, limit: 10, visibility: VISIBLE_ALL })
    .results.map((h) => h.id)
    .sort();

describe("prefix terms matched exactly when no longer token exists", () => {
  it("maps a term to the one token starting with it, plain ASCII terms only", () => {
    index = openSearchIndex(":memory:");
    index.reconcile([note("ops/a", "alpha gate gateway beta"), note("ops/b", "café x9")]);
    const cache = new StatementCache(index.database());
    const exact = exactTerms(cache, ["alpha", "gate", "gateway", "alp", "zzz", "caf", "x9", "a-b"]);
    // gate: gate and gateway; alp → alpha; caf → cafe; a-b is two tokens; zzz matches nothing.
    expect([...exact].sort()).toEqual([
      ["alp", "alpha"],
      ["alpha", "alpha"],
      ["caf", "cafe"],
      ["gateway", "gateway"],
      ["x9", "x9"],
      ["zzz", "zzz"],
    ]);
  });

  it("lists a prefix's tokens in order, up to a count", () => {
    index = openSearchIndex(":memory:");
    index.reconcile([note("ops/a", "gate gateway gates gather"), note("ops/b", "gatekeeper go")]);
    const cache = new StatementCache(index.database());
    expect([...completions(cache, "gate", 10)]).toEqual(["gate", "gatekeeper", "gates", "gateway"]);
    expect([...completions(cache, "ga", 2)]).toEqual(["gate", "gatekeeper"]);
    expect([...completions(cache, "zz", 5)]).toEqual([]);
  });

  it("a prefix with one completion answers as the prefix query, also after writes", () => {
    index = openSearchIndex(":memory:");
    index.reconcile([
      note("ops/a", "backup restores nightly restores"),
      note("ops/b", "backup restores"),
      note("ops/c", "restores only"),
    ]);
    const cache = new StatementCache(index.database());
    expect(exactTerms(cache, ["restor"]).get("restor")).toBe("restores");
    const ranked = (q: string) =>
      index.search({ query: q, limit: 10, visibility: VISIBLE_ALL }).results.map((h) => h.id);
    // Ordered by bm25 (ops/a holds the word twice): the order the prefix query gives.
    const db = index.database();
    const prefixOrder = db
      .prepare(
        "SELECT c.id FROM concepts_fts f JOIN concepts c ON c.rowid = f.rowid WHERE concepts_fts MATCH ? " +
          "ORDER BY bm25(concepts_fts, 4.0, 8.0, 3.0, 1.0), c.id",
      )
      .pluck()
      .all('"backup" AND "restor"*');
    expect(ranked("backup restor")).toEqual(prefixOrder);
    index.upsert(note("ops/d", "backup restored"));
    expect(exactTerms(cache, ["restor"]).has("restor")).toBe(false);
    expect(ids("backup restor")).toEqual(["ops/a", "ops/b", "ops/d"]);
  });

  it("a write adding a longer token makes the term a prefix query again", () => {
    index = openSearchIndex(":memory:");
    index.reconcile([note("ops/a", "the alpha release")]);
    expect(ids("alpha")).toEqual(["ops/a"]);
    index.upsert(note("ops/b", "the alphabet soup"));
    expect(ids("alpha")).toEqual(["ops/a", "ops/b"]);
    index.remove("ops/a");
    expect(ids("alpha")).toEqual(["ops/b"]);
  });

  it("answers nothing exact inside a transaction (a build's rows)", () => {
    index = openSearchIndex(":memory:");
    index.reconcile([note("ops/a", "alpha")]);
    const db = index.database();
    const cache = new StatementCache(db);
    db.exec("BEGIN");
    try {
      expect(exactTerms(cache, ["alpha"]).size).toBe(0);
      expect([...completions(cache, "alp", 5)]).toEqual([]);
    } finally {
      db.exec("ROLLBACK");
    }
    expect(exactTerms(cache, ["alpha"]).size).toBe(1);
  });
});
