/**
 * The read worker pool of index builds (build-reader.ts): a worker thread reads and
 * parses concept files exactly as the main thread would, forwards the parse warnings, and a
 * batch it cannot read is read in process, which fails the way it always did.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { MapDescriptor } from "../../src/kb/core/types.js";
import { readIndexDocs } from "../../src/kb/store/index-read.js";
import { memoryLogger } from "../../src/logger.js";
import { ReadWorkerPool, takePreparedRow } from "../../src/search/build-reader.js";
import { prepareRow } from "../../src/search/rows.js";
import { useTempDirs } from "../support/temp-dir.js";

const newDir = useTempDirs("carto-buildreader-");
const pools: ReadWorkerPool[] = [];
afterEach(async () => {
  for (const pool of pools.splice(0)) await pool.close();
});

const maps: MapDescriptor[] = [
  {
    name: "infra",
    kind: "map",
    title: "Infra",
    conceptTypes: [],
    ontologyMode: "emergent",
    requiredFields: [],
    requiredFieldsByType: {},
    requireIndexEntry: false,
    legacy: false,
    path: "data/infra/_map.md",
    frontmatter: { type: "Map", title: "Infra", kind: "map" },
  },
];

function kbWith(files: Record<string, string>): string {
  const root = newDir();
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
  return root;
}

function stats(root: string, rels: string[]) {
  return rels.map((rel) => {
    const st = fs.statSync(path.join(root, rel), { throwIfNoEntry: false });
    return {
      id: rel.replace(/^data\//, "").replace(/\.md$/, ""),
      path: rel,
      mtimeMs: st?.mtimeMs ?? 0,
      size: st?.size ?? 0,
    };
  });
}

describe("ReadWorkerPool", () => {
  it("reads the same documents and warnings as readIndexDocs in process", async () => {
    const root = kbWith({
      "data/infra/a.md": "---\ntype: note\ntitle: Café\ntags: [x, y]\n# c\n---\nbody  \r\n",
      "data/infra/b.md": "---\ntype: note\ntitle: [unclosed\n---\nbody b\n",
      "data/infra/c/index.md": "no frontmatter at all\n",
      "data/infra/d.md": "---\n\ntype: Device\nlist:\n  - 1\n  - two\nempty:\n---\n東京\n",
    });
    const files = stats(root, [
      "data/infra/a.md",
      "data/infra/b.md",
      "data/infra/c/index.md",
      "data/infra/d.md",
      "data/infra/gone.md",
    ]);
    const here = memoryLogger();
    const expected = await readIndexDocs(root, files, maps, here);
    const pool = new ReadWorkerPool(1);
    pools.push(pool);
    const there = memoryLogger();
    const got = await pool.read(root, maps, files, there);
    expect(got).toEqual(expected);
    expect(got[4]).toBeNull(); // vanished since the scan
    // Key order too: the index stores JSON.stringify(frontmatter).
    expect(got.map((d) => d && JSON.stringify(d.frontmatter))).toEqual(
      expected.map((d) => d && JSON.stringify(d.frontmatter)),
    );
    expect(there.lines).toEqual(here.lines);
    expect(pool.batches).toEqual({ worker: 1, inProcess: 0 });
    // The row values come along, as prepareRow computes them here; taken once by the insert.
    for (const doc of got) {
      if (doc === null) continue;
      expect(takePreparedRow(doc)).toEqual(prepareRow(doc));
      expect(takePreparedRow(doc)).toBeUndefined();
    }
  });

  it("a batch the worker cannot read is read in process, failing as readIndexDocs does", async () => {
    const root = kbWith({ "data/infra/a.md": "---\ntype: note\n---\nx\n" });
    const outside = [{ id: "infra/x", path: "../outside.md", mtimeMs: 0, size: 1 }];
    const inProcess = await readIndexDocs(root, outside, maps).catch((e: unknown) => e);
    expect(inProcess).toBeInstanceOf(Error);
    const pool = new ReadWorkerPool(1);
    pools.push(pool);
    const viaPool = await pool.read(root, maps, outside, undefined).catch((e: unknown) => e);
    expect(viaPool).toEqual(inProcess);
    expect((viaPool as { code?: string }).code).toBe((inProcess as { code?: string }).code);
    expect(pool.batches).toEqual({ worker: 0, inProcess: 1 });
    // The worker is still there for the next batch.
    const ok = await pool.read(root, maps, stats(root, ["data/infra/a.md"]), undefined);
    expect(ok[0]?.type).toBe("note");
    expect(pool.batches.worker).toBe(1);
  });

  it("starts its thread on demand and stops it when idle", async () => {
    const root = kbWith({ "data/infra/a.md": "---\ntype: note\n---\nx\n" });
    const pool = new ReadWorkerPool(1, 50);
    pools.push(pool);
    expect(pool.running).toBe(0);
    await pool.read(root, maps, stats(root, ["data/infra/a.md"]), undefined);
    expect(pool.running).toBe(1);
    for (let waited = 0; pool.running > 0 && waited < 5_000; waited += 25)
      await new Promise((resolve) => setTimeout(resolve, 25));
    expect(pool.running).toBe(0);
    const again = await pool.read(root, maps, stats(root, ["data/infra/a.md"]), undefined);
    expect(again[0]?.type).toBe("note");
    expect(pool.batches).toEqual({ worker: 2, inProcess: 0 });
  });

  it("spreads concurrent batches over its threads and answers each with its own files", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 40; i++)
      files[`data/infra/n${i}.md`] = `---\ntype: note\ntitle: N${i}\n---\n${i}\n`;
    const root = kbWith(files);
    const pool = new ReadWorkerPool(2);
    pools.push(pool);
    const batches = Array.from({ length: 4 }, (_, b) =>
      stats(
        root,
        Array.from({ length: 10 }, (_, i) => `data/infra/n${b * 10 + i}.md`),
      ),
    );
    const read = await Promise.all(batches.map((batch) => pool.read(root, maps, batch, undefined)));
    expect(pool.batches).toEqual({ worker: 4, inProcess: 0 });
    expect(read.map((docs) => docs.map((d) => d?.title))).toEqual(
      batches.map((batch) => batch.map((f) => `N${f.id.slice("infra/n".length)}`)),
    );
  });
});
