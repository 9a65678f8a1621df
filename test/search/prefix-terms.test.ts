/**
 * A word-prefix term runs as an exact term only while no longer token starts with it
 * (prefix-terms.ts): the answer must stay what the prefix query answers, also right
 * after a write adds such a token.
 */
import { afterEach, describe, expect, it } from "vitest";
import { VISIBLE_ALL } from "../../src/kb/core/types.js";
import { wholeTokenTerms } from "../../src/search/prefix-terms.js";
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
  it("tells whole tokens from prefixes of longer ones, and plain ASCII tokens only", () => {
    index = openSearchIndex(":memory:");
    index.reconcile([note("ops/a", "alpha gate gateway beta"), note("ops/b", "café x9")]);
    const cache = new StatementCache(index.database());
    const whole = wholeTokenTerms(cache, [
      "alpha",
      "gate",
      "gateway",
      "alp",
      "zzz",
      "caf",
      "x9",
      "a-b",
    ]);
    // gate → gateway exists; alp → alpha; caf → cafe; a-b is two tokens; zzz matches nothing.
    expect([...whole].sort()).toEqual(["alpha", "gateway", "x9", "zzz"]);
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
      expect(wholeTokenTerms(cache, ["alpha"]).size).toBe(0);
    } finally {
      db.exec("ROLLBACK");
    }
    expect(wholeTokenTerms(cache, ["alpha"]).size).toBe(1);
  });
});
