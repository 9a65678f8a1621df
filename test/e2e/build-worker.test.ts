/**
 * The read worker of index builds runs from the built tree: dist/search/build-reader.js
 * starts dist/search/build-read-worker.js, the file the bundle points at too (scripts/bundle.ts
 * rewrites import.meta.url to the tsc-built URL). Under vitest the .ts worker runs through tsx
 * (test/search/build-reader.test.ts); this covers the plain-node path a server takes.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ReadWorkerPool } from "../../src/search/build-reader.js";
import { tempDir } from "./helpers.js";

const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

describe("the built read worker", () => {
  it("reads a batch on its thread, not in process", async () => {
    const built = path.resolve(import.meta.dirname, "../../dist/search/build-reader.js");
    const { ReadWorkerPool: Pool } = (await import(built)) as {
      ReadWorkerPool: new (threads?: number) => ReadWorkerPool;
    };
    const { dir, cleanup } = tempDir();
    cleanups.push(cleanup);
    fs.mkdirSync(path.join(dir, "data", "notes"), { recursive: true });
    fs.writeFileSync(path.join(dir, "data/notes/a.md"), "---\ntype: note\ntitle: A\n---\nbody\n");
    const pool = new Pool(1);
    cleanups.push(() => pool.close());
    const files = [{ id: "notes/a", path: "data/notes/a.md", mtimeMs: 0, size: 40 }];
    const docs = await pool.read(dir, [], files, undefined);
    expect(docs[0]).toMatchObject({ id: "notes/a", type: "note", title: "A", body: "body\n" });
    expect(pool.batches).toEqual({ worker: 1, inProcess: 0 });
  });
});
