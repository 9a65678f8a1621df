/**
 * The served first build (buildKbIndex in bulk mode, files read by the worker pool one batch
 * ahead) stores exactly what a full `reindex` stores: the same concept rows, bodies, fields and
 * vocabulary, and the same search answers (its speed-ups must not change results).
 */
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { KbStore } from "../../src/kb/core/api.js";
import { VISIBLE_ALL } from "../../src/kb/core/types.js";
import { initKb, openKb } from "../../src/kb/store/store.js";
import { ReadWorkerPool } from "../../src/search/build-reader.js";
import { buildKbIndex, kbIndexPath, openKbIndexFile, readDocs } from "../../src/search/kb-index.js";
import { rebuildKbIndex } from "../../src/search/rebuild-kb-index.js";
import { openSearchIndex } from "../../src/search/sqlite-index.js";
import { TEST_AUTHOR, testKbSettings } from "../support/kb.js";
import { useTempDirs } from "../support/temp-dir.js";

/** Above the bulk threshold (200) and the read worker's (1,500 files: three batches of 500). */
const COUNT = 1_600;
const newDir = useTempDirs("carto-firstbuild-");
let root: string;
let store: KbStore;
const pools: ReadWorkerPool[] = [];
afterEach(async () => {
  for (const pool of pools.splice(0)) await pool.close();
});

function write(rel: string, text: string): void {
  fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  fs.writeFileSync(path.join(root, rel), text);
}

const WORDS = ["gateway", "Café", "brûlée", "東京", "runbook_v3", "EDGE-gw2", "naïve", "Straße"];

/** Concept i: varied frontmatter (lists, timestamps, odd keys) and ASCII or non-ASCII text. */
function concept(i: number): string {
  const w = (k: number) => WORDS[(i + k) % WORDS.length];
  const fm = [
    `type: ${i % 3 === 0 ? "note" : "device"}`,
    `title: ${w(0)} item ${i}`,
    i % 2 === 0 ? `tags: [t${i % 7}, ${w(1)}]` : "tags:\n  - solo",
    i % 5 === 0 ? `timestamp: 2024-0${(i % 9) + 1}-1${i % 10}T10:00:00Z` : "owner: team-a",
    i % 11 === 0 ? "# a comment\nempty:" : `rank: ${i}`,
  ].join("\n");
  return `---\n${fm}\n---\n# ${w(2)}\n\nword${i} shared ${w(3)} text ${i % 13} ${w(4)}.\n`;
}

function fileOf(i: number): string {
  const folder = i % 4 === 0 ? "log" : i % 4 === 1 ? "misc" : "infra";
  return `data/${folder}/c${i}.md`;
}

beforeEach(async () => {
  root = path.join(newDir(), "kb");
  await initKb(root, { gitAuthor: TEST_AUTHOR });
  write("data/infra/_map.md", "---\ntype: Map\ntitle: Infra\nkind: map\n---\n# Infra\n");
  write("data/log/_map.md", "---\ntype: Map\ntitle: Log\nkind: journal\n---\n# Log\n");
  for (let i = 0; i < COUNT; i++) write(fileOf(i), concept(i));
  write("data/infra/expanded/index.md", concept(COUNT));
  write("data/misc/bad.md", "---\ntype: [unclosed\n---\nbody\n");
  store = await openKb(testKbSettings(root, { name: "kb" }));
});

/** Everything the index stores, by concept id (rowids and stat times aside). */
function contents(dbPath: string) {
  const db = new Database(dbPath, { readonly: true });
  try {
    const all = (sql: string) => db.prepare(sql).all();
    return {
      concepts: all(
        "SELECT id, path, map, journal, type, title, tags, hash, frontmatter, timestamp, ts_ms, mtime_ms, size FROM concepts ORDER BY id",
      ),
      bodies: all(
        "SELECT c.id, b.body, b.title_fold, b.body_fold FROM bodies b JOIN concepts c ON c.rowid = b.concept ORDER BY c.id",
      ),
      fields: all(
        "SELECT c.id, f.key, f.value FROM fields f JOIN concepts c ON c.rowid = f.concept ORDER BY c.id, f.key, f.value",
      ),
      vocab: db.prepare("SELECT term FROM vocab ORDER BY term").pluck().all(),
      indexes: db
        .prepare(
          "SELECT name FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL ORDER BY name",
        )
        .pluck()
        .all(),
    };
  } finally {
    db.close();
  }
}

const QUERIES = [
  "gateway",
  "cafe",
  "東京",
  "brulee",
  "ateway",
  "word7",
  "shared text",
  "straße",
  "t3",
  "solo",
];

function answers(dbPath: string) {
  const index = openSearchIndex(dbPath);
  try {
    return QUERIES.map((query) => index.search({ query, limit: 20, visibility: VISIBLE_ALL }));
  } finally {
    index.close();
  }
}

/**
 * The plain way, as reindex was before it went through the batched pass: every document read
 * in process, then every row inserted in one transaction (replaceAll).
 */
async function referenceBuild(): Promise<void> {
  const maps = await store.maps();
  const files = await store.scanConceptFiles();
  const docs = await readDocs(store.root, maps, files, undefined);
  const index = openSearchIndex(kbIndexPath(store));
  try {
    index.replaceAll(
      files.flatMap((f) => {
        const doc = docs.get(f.id);
        return doc ? [{ doc, stat: { mtimeMs: f.mtimeMs, size: f.size } }] : [];
      }),
    );
  } finally {
    index.close();
  }
}

describe("a first build through the worker pool", () => {
  it("stores the same rows, vocabulary and search answers as reindex", async () => {
    const pool = new ReadWorkerPool(1);
    pools.push(pool);
    const index = openKbIndexFile(store);
    const stats = await buildKbIndex(store, index, { reader: pool });
    index.close();
    expect(stats.added).toBe(COUNT + 2);
    expect(pool.batches).toEqual({ worker: 4, inProcess: 0 });
    const built = { rows: contents(kbIndexPath(store)), answers: answers(kbIndexPath(store)) };

    fs.rmSync(kbIndexPath(store));
    await referenceBuild();
    const reference = { rows: contents(kbIndexPath(store)), answers: answers(kbIndexPath(store)) };
    fs.rmSync(kbIndexPath(store));
    await rebuildKbIndex(store);
    const rebuilt = { rows: contents(kbIndexPath(store)), answers: answers(kbIndexPath(store)) };
    expect(rebuilt).toEqual(reference);

    expect(built.rows.concepts).toHaveLength(COUNT + 2);
    expect(built.rows.vocab.length).toBeGreaterThan(COUNT);
    expect(QUERIES.filter((_, i) => built.answers[i]?.results.length === 0)).toEqual([]);
    expect(built).toEqual(rebuilt);
  });

  it("a pass of fewer than 1,500 files reads in process (starting the worker costs more)", async () => {
    for (let i = 0; i < COUNT; i++) if (i >= 1_000) fs.rmSync(path.join(root, fileOf(i)));
    const pool = new ReadWorkerPool(1);
    pools.push(pool);
    const index = openKbIndexFile(store);
    const stats = await buildKbIndex(store, index, { reader: pool });
    index.close();
    expect(stats.added).toBe(1_002);
    expect(pool.batches).toEqual({ worker: 0, inProcess: 0 });
    expect(pool.running).toBe(0);
  });
});
