/**
 * The bulk paths of a first build and of replaceAll (docs/decisions.md "A first build holds one
 * transaction across batches"): ASCII-only rows' vocabulary comes from the word index at the end
 * (fillVocabulary) instead of a regex per row, and a first build writes into one transaction held
 * across batches (HeldTransaction).
 */
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { VISIBLE_ALL } from "../../src/kb/core/types.js";
import { HeldTransaction } from "../../src/search/held-transaction.js";
import { openSearchIndex, type SqliteSearchIndex } from "../../src/search/sqlite-index.js";
import { doc } from "./docs.js";

const opened: SqliteSearchIndex[] = [];
afterEach(() => {
  for (const index of opened.splice(0)) index.close();
});

function fresh(): SqliteSearchIndex {
  const index = openSearchIndex(":memory:");
  opened.push(index);
  return index;
}

const docs = [
  doc("ops/gateway", { body: "The EDGE-gateway2 routes traffic; see runbook_v3." }),
  doc("ops/backup", { frontmatter: { type: "note", title: "Nightly Snapshots" }, body: "x" }),
  doc("food/cafe", { frontmatter: { type: "note", title: "Crème brûlée" }, body: "Le CAFÉ." }),
  doc("travel/tokyo", { body: "東京タワーは観光地です。" }),
  doc("misc/tags", { frontmatter: { type: "note", title: "t", tags: ["onlyintags"] } }),
];
const stat = { mtimeMs: 1, size: 1 };

function terms(index: SqliteSearchIndex): string[] {
  return index.database().prepare("SELECT term FROM vocab ORDER BY term").pluck().all() as string[];
}

describe("bulk builds fill the vocabulary from the word index", () => {
  it("a bulk first build leaves the same vocabulary as one row at a time", () => {
    const rowByRow = fresh();
    for (const d of docs) rowByRow.upsert(d, stat);
    const bulk = fresh();
    bulk.bulkMode(true);
    bulk.upsertMany(docs.map((d) => ({ doc: d, stat })));
    bulk.bulkMode(false);
    expect(terms(bulk)).toEqual(terms(rowByRow));
    expect(terms(bulk)).toContain("gateway2");
    expect(terms(bulk)).not.toContain("onlyintags"); // titles and bodies only, as before
  });

  it("in steps between batches too, and a tool's write during the build keeps its tokens", () => {
    const rowByRow = fresh();
    for (const d of docs) rowByRow.upsert(d, stat);
    const late = doc("ops/late", { body: "aardvarkzz arrived" });
    rowByRow.upsert(late, stat);
    const bulk = fresh();
    bulk.bulkMode(true);
    bulk.upsertMany(docs.map((d) => ({ doc: d, stat })));
    let steps = 0;
    while (!bulk.fillVocabularyStep()) steps++;
    bulk.upsert(late, stat); // after the fill went past "aardvarkzz"
    bulk.bulkMode(false);
    expect(steps).toBeLessThan(5);
    expect(terms(bulk)).toEqual(terms(rowByRow));
  });

  it("replaceAll too, and fragments of ASCII words are then found by the substring fallback", () => {
    const rowByRow = fresh();
    for (const d of docs) rowByRow.upsert(d, stat);
    const index = fresh();
    index.replaceAll(docs.map((d) => ({ doc: d, stat })));
    expect(terms(index)).toEqual(terms(rowByRow));
    const hit = index.search({ query: "ateway2", limit: 5, visibility: VISIBLE_ALL });
    expect(hit).toMatchObject({ match: "substring", results: [{ id: "ops/gateway" }] });
    const snap = index.search({ query: "apshot", limit: 5, visibility: VISIBLE_ALL });
    expect(snap.results.map((h) => h.id)).toEqual(["ops/backup"]);
  });

  it("merges FTS5 segments 16 at a time while bulk, 4 (FTS5's default) again afterwards, and restores the pragmas", () => {
    const index = fresh();
    const automerge = () =>
      ["concepts_fts", "concepts_tri"].map(
        (t) =>
          index
            .database()
            .prepare(`SELECT v FROM ${t}_config WHERE k = 'automerge'`)
            .pluck()
            .get() ?? "default",
      );
    const pragma = (name: string) => index.database().pragma(name, { simple: true });
    expect(automerge()).toEqual(["default", "default"]);
    expect([pragma("cache_size"), pragma("synchronous")]).toEqual([-65_536, 1]); // 1: NORMAL
    index.bulkMode(true);
    expect(automerge()).toEqual([16, 16]);
    // A smaller page cache and no fsync while a first build fills the file (bulk-settings.ts).
    expect([pragma("cache_size"), pragma("synchronous")]).toEqual([-16_384, 0]);
    index.bulkMode(false);
    expect(automerge()).toEqual([4, 4]);
    expect([pragma("cache_size"), pragma("synchronous")]).toEqual([-65_536, 1]);
  });

  it("a search during a bulk build sees the rows written so far (uncommitted)", () => {
    const index = fresh();
    index.bulkMode(true);
    index.upsertMany(docs.slice(0, 1).map((d) => ({ doc: d, stat })));
    expect(index.database().inTransaction).toBe(true); // held across batches
    expect(
      index.search({ query: "gateway2", limit: 5, visibility: VISIBLE_ALL }).results,
    ).toHaveLength(1);
    index.upsert(docs[1] as (typeof docs)[number], stat); // a tool's write nests as a savepoint
    index.bulkMode(false);
    expect(index.database().inTransaction).toBe(false);
    expect(index.count()).toBe(2);
  });
});

describe("HeldTransaction", () => {
  it("commits every N rows and stops the build when SQLite dropped the transaction", () => {
    const db = new Database(":memory:");
    db.exec("CREATE TABLE t (x)");
    const held = new HeldTransaction(() => db, 3);
    held.begin();
    db.exec("INSERT INTO t VALUES (1), (2)");
    held.rowsWritten(2);
    expect(db.inTransaction).toBe(true);
    db.exec("INSERT INTO t VALUES (3)");
    held.rowsWritten(1);
    expect(db.inTransaction).toBe(false); // committed at 3
    held.begin();
    db.exec("INSERT INTO t VALUES (4)");
    db.exec("ROLLBACK"); // as SQLite does on a full disk or an I/O error
    expect(() => held.rowsWritten(5)).toThrow(/rolled back/);
    expect(db.prepare("SELECT count(*) FROM t").pluck().get()).toBe(3);
    db.close();
  });
});
