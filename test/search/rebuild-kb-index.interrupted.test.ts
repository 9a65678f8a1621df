/**
 * A first build the process does not finish (killed, crashed) is redone at the next open: bulk
 * mode leaves a file with part of the rows, no secondary indexes, its vocabulary deferred and
 * written without fsync (synchronous=OFF), marked as such (bulk-settings.ts BULK_BUILD_KEY).
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import Database from "better-sqlite3";
import { beforeEach, describe, expect, it } from "vitest";
import type { KbStore } from "../../src/kb/core/api.js";
import { initKb, openKb } from "../../src/kb/store/store.js";
import { memoryLogger } from "../../src/logger.js";
import { buildKbIndex, kbIndexPath, openKbIndexFile } from "../../src/search/kb-index.js";
import { rebuildKbIndex } from "../../src/search/rebuild-kb-index.js";
import { TEST_AUTHOR, testKbSettings } from "../support/kb.js";
import { useTempDirs } from "../support/temp-dir.js";

const COUNT = 1_200;
const CHILD = path.join(import.meta.dirname, "support", "build-then-die.ts");
const newDir = useTempDirs("carto-interrupted-");
let root: string;
let store: KbStore;

beforeEach(async () => {
  root = path.join(newDir(), "kb");
  await initKb(root, { gitAuthor: TEST_AUTHOR });
  fs.mkdirSync(path.join(root, "data", "infra"), { recursive: true });
  fs.writeFileSync(
    path.join(root, "data/infra/_map.md"),
    "---\ntype: Map\ntitle: Infra\nkind: map\n---\n",
  );
  for (let i = 0; i < COUNT; i++)
    fs.writeFileSync(
      path.join(root, `data/infra/c${i}.md`),
      `---\ntype: note\ntitle: Concept ${i}\ntags: [t${i % 5}]\n---\nword${i} gateway\n`,
    );
  store = await openKb(testKbSettings(root, { name: "kb" }));
});

function contents() {
  const db = new Database(kbIndexPath(store), { readonly: true });
  try {
    const all = (sql: string) => db.prepare(sql).all();
    return {
      concepts: all("SELECT id, hash, frontmatter FROM concepts ORDER BY id"),
      fields: all(
        "SELECT c.id, f.key, f.value FROM fields f JOIN concepts c ON c.rowid = f.concept ORDER BY 1, 2, 3",
      ),
      vocab: all("SELECT term FROM vocab ORDER BY term"),
      indexes: all(
        "SELECT name FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL ORDER BY name",
      ),
    };
  } finally {
    db.close();
  }
}

describe("a first build killed half-way", () => {
  it("is built again at the next open and comes out complete", async () => {
    const killed = await promisify(execFile)(process.execPath, [
      "--import",
      "tsx",
      CHILD,
      root,
      "600",
    ]).then(
      () => null,
      (err: { signal?: string }) => err.signal,
    );
    expect(killed).toBe("SIGKILL");
    const left = new Database(kbIndexPath(store), { readonly: true });
    const partial = left.prepare("SELECT count(*) FROM concepts").pluck().get() as number;
    left.close();
    expect(partial).toBeGreaterThan(0); // what the child committed before it died
    expect(partial).toBeLessThan(COUNT);

    const logger = memoryLogger();
    const index = openKbIndexFile(store, { logger });
    const stats = await buildKbIndex(store, index);
    index.close();
    expect(logger.lines.join("\n")).toMatch(/first build that did not finish; rebuilding it/);
    expect(stats.added).toBe(COUNT);
    const built = contents();
    const db = new Database(kbIndexPath(store), { readonly: true });
    expect(db.prepare("SELECT key FROM meta").pluck().all()).not.toContain("bulk_build");
    db.close();

    fs.rmSync(kbIndexPath(store));
    await rebuildKbIndex(store);
    expect(built).toEqual(contents());
    expect(built.indexes.length).toBeGreaterThan(0);
  });
});
