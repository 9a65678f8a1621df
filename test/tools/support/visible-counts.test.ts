import path from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { VISIBLE_ALL, type Visibility } from "../../../src/kb/core/types.js";
import { openSearchIndex, type SqliteSearchIndex } from "../../../src/search/sqlite-index.js";
import { changeSignal, visibleCount } from "../../../src/tools/support/visible-counts.js";
import { doc } from "../../search/docs.js";
import { useTempDirs } from "../../support/temp-dir.js";

const tmp = useTempDirs("visible-counts-");
let index: SqliteSearchIndex | undefined;
afterEach(() => index?.close());

const ONLY_A: Visibility = { all: false, rules: [{ maps: ["a"], journals: [], types: [] }] };

function open(dbPath = ":memory:"): SqliteSearchIndex {
  index = openSearchIndex(dbPath);
  index.reconcile([doc("a/one"), doc("a/two"), doc("b/one")]);
  return index;
}

describe("visible counts are kept until the index changes", () => {
  it("answers each visibility its own count, never a wider reader's", () => {
    const ix = open();
    expect(visibleCount(ix, VISIBLE_ALL)).toBe(3);
    expect(visibleCount(ix, ONLY_A)).toBe(2);
    expect(visibleCount(ix, VISIBLE_ALL)).toBe(3);
    expect(visibleCount(ix, ONLY_A, "b")).toBe(0);
    expect(visibleCount(ix, VISIBLE_ALL, "b")).toBe(1);
  });

  it("recounts after a write on the index's own connection", () => {
    const ix = open();
    expect(visibleCount(ix, ONLY_A)).toBe(2);
    ix.upsert(doc("a/three"));
    expect(visibleCount(ix, ONLY_A)).toBe(3);
    ix.remove("a/one");
    ix.remove("a/two");
    expect(visibleCount(ix, ONLY_A)).toBe(1);
    expect(visibleCount(ix, VISIBLE_ALL)).toBe(2);
  });

  it("keeps the count while nothing is written (the signal holds still across reads)", () => {
    const ix = open();
    const before = changeSignal(ix.database());
    visibleCount(ix, VISIBLE_ALL);
    ix.list({ limit: 5, visibility: VISIBLE_ALL });
    expect(changeSignal(ix.database())).toBe(before);
    ix.upsert(doc("b/two"));
    expect(changeSignal(ix.database())).not.toBe(before);
  });

  it("recounts after another connection commits to the same file", () => {
    const file = path.join(tmp(), "index.db");
    const ix = open(file);
    expect(visibleCount(ix, VISIBLE_ALL)).toBe(3);
    const other = new Database(file);
    try {
      other.prepare("DELETE FROM concepts WHERE id = ?").run("b/one");
    } finally {
      other.close();
    }
    expect(visibleCount(ix, VISIBLE_ALL)).toBe(2);
  });
});
