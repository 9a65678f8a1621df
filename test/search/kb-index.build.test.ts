/**
 * The background build pass (buildKbIndex): batched, reporting progress, abortable,
 * never undoing a tool's write made while it runs, and as compact as a full reindex.
 */
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { beforeEach, describe, expect, it } from "vitest";
import type { KbStore } from "../../src/kb/core/api.js";
import { VISIBLE_ALL } from "../../src/kb/core/types.js";
import { initKb, openKb } from "../../src/kb/store/store.js";
import { quickCheckInWorker } from "../../src/search/integrity-check.js";
import { buildKbIndex, kbIndexPath, openKbIndexFile } from "../../src/search/kb-index.js";
import { rebuildKbIndex } from "../../src/search/rebuild-kb-index.js";
import { TEST_AUTHOR, testKbSettings } from "../support/kb.js";
import { useTempDirs } from "../support/temp-dir.js";

const COUNT = 600;
const newDir = useTempDirs("carto-kbbuild-");
let root: string;
let store: KbStore;

function write(rel: string, text: string): void {
  fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  fs.writeFileSync(path.join(root, rel), text);
}

const concept = (title: string, body: string) => `---\ntype: note\ntitle: ${title}\n---\n${body}\n`;

beforeEach(async () => {
  root = path.join(newDir(), "kb");
  await initKb(root, { gitAuthor: TEST_AUTHOR });
  write("data/infra/_map.md", "---\ntype: Map\ntitle: Infra\nkind: map\n---\n# Infra\n");
  for (let i = 0; i < COUNT; i++)
    write(`data/infra/c${i}.md`, concept(`Concept ${i}`, `word${i} shared gateway text ${i % 13}`));
  store = await openKb(testKbSettings(root, { name: "kb" }));
});

/** Rows of the word index's segment table: one FTS5 segment per savepoint inflates it. */
function ftsDataRows(): number {
  const db = new Database(kbIndexPath(store), { readonly: true });
  try {
    return (db.prepare("SELECT count(*) AS n FROM concepts_fts_data").get() as { n: number }).n;
  } finally {
    db.close();
  }
}

describe("buildKbIndex", () => {
  it("a first build leaves the word index as compact as a full reindex (no segment per concept)", async () => {
    const index = openKbIndexFile(store);
    const stats = await buildKbIndex(store, index);
    index.close();
    const built = ftsDataRows();
    expect(stats.added).toBeGreaterThanOrEqual(COUNT);
    await rebuildKbIndex(store);
    // The per-row savepoint build (the served path before batched builds) left ~2× the rows.
    expect(built).toBeLessThanOrEqual(ftsDataRows());
  });

  it("reports progress up to the total and answers searches with its indexes rebuilt", async () => {
    const index = openKbIndexFile(store);
    const seen: Array<[number, number]> = [];
    await buildKbIndex(store, index, { onProgress: (d, t) => seen.push([d, t]) });
    const total = (await store.scanConceptFiles()).length;
    expect(seen[0]).toEqual([0, total]);
    expect(seen.at(-1)).toEqual([total, total]);
    expect(seen.length).toBeGreaterThan(2);
    const hits = index.list({ limit: 5, visibility: VISIBLE_ALL, where: ["title=Concept 7"] });
    expect(hits.items.map((h) => h.id)).toEqual(["infra/c7"]);
    index.close();
    const db = new Database(kbIndexPath(store), { readonly: true });
    const names = db
      .prepare("SELECT name FROM sqlite_schema WHERE type = 'index' AND name LIKE 'fields_%'")
      .pluck()
      .all();
    db.close();
    expect(names.sort()).toEqual(["fields_concept", "fields_kv"]);
  });

  it("a concept a tool writes while the build runs keeps the tool's version", async () => {
    const index = openKbIndexFile(store);
    let wrote = false;
    const build = buildKbIndex(store, index, {
      onProgress: (done) => {
        if (wrote || done === 0) return;
        wrote = true;
        // The build has read every file already; the tool's write is newer.
        write("data/infra/c599.md", concept("Rewritten", "brandnewword"));
        index.upsert({
          id: "infra/c599",
          path: "data/infra/c599.md",
          frontmatter: { type: "note", title: "Rewritten" },
          body: "brandnewword",
          hash: "x",
          type: "note",
          title: "Rewritten",
          expanded: false,
          map: "infra",
          journal: null,
        });
      },
    });
    await build;
    expect(wrote).toBe(true);
    const hit = index.search({ query: "brandnewword", limit: 5, visibility: VISIBLE_ALL });
    expect(hit.results.map((h) => h.id)).toEqual(["infra/c599"]);
    index.close();
  });

  it("stops between batches when aborted and leaves a usable index", async () => {
    const index = openKbIndexFile(store);
    const ctrl = new AbortController();
    const build = buildKbIndex(store, index, {
      onProgress: (done) => {
        if (done > 0) ctrl.abort();
      },
      signal: ctrl.signal,
    });
    await expect(build).rejects.toThrow();
    const n = index.count();
    expect(n).toBeGreaterThan(0);
    expect(n).toBeLessThan(COUNT);
    const again = await buildKbIndex(store, index);
    expect(again.added + again.changed + again.unchanged).toBeGreaterThanOrEqual(COUNT);
    expect(index.count()).toBeGreaterThanOrEqual(COUNT);
    index.close();
  });
});

describe("quickCheckInWorker", () => {
  it("says ok for a sound index and names the damage of a garbled one (off the event loop)", async () => {
    const index = openKbIndexFile(store);
    await buildKbIndex(store, index);
    index.close();
    const dbPath = kbIndexPath(store);
    expect(await quickCheckInWorker(dbPath)).toEqual({ ok: true });
    // Garble the word index's pages (no table probe at open reads them all).
    const db = new Database(dbPath, { readonly: true });
    const pages = db
      .prepare(
        "SELECT pageno FROM dbstat WHERE name = 'concepts_fts_data' ORDER BY pageno DESC LIMIT 3",
      )
      .pluck()
      .all() as number[];
    db.close();
    const fd = fs.openSync(dbPath, "r+");
    for (const page of pages)
      fs.writeSync(fd, Buffer.alloc(4096, 0xa5), 0, 4096, (page - 1) * 4096);
    fs.closeSync(fd);
    const check = await quickCheckInWorker(dbPath);
    expect(check.ok).toBe(false);
  });
});
