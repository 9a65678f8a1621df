/**
 * A full rebuild (the `index_rebuild` tool, the `reindex` CLI) runs in batches like a first
 * build (docs/decisions.md "A full rebuild"): other calls run between batches (they used to wait
 * for one synchronous transaction holding every row, ~1.2 s per 10,000 concepts, with every
 * document in memory), and its counts still say what changed since the previous content.
 */
import fs from "node:fs";
import path from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import type { KbStore } from "../../src/kb/core/api.js";
import { initKb, openKb } from "../../src/kb/store/store.js";
import { openKbIndex } from "../../src/search/kb-index.js";
import { rebuildKbIndex } from "../../src/search/rebuild-kb-index.js";
import { useTempDirs } from "../support/temp-dir.js";

/** Above the bulk threshold (200): two batches of 500. */
const COUNT = 700;
const newDir = useTempDirs("carto-reindex-batched-");
let root: string;
let store: KbStore;

function write(rel: string, text: string): void {
  fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  fs.writeFileSync(path.join(root, rel), text);
}

beforeEach(async () => {
  root = path.join(newDir(), "kb");
  await initKb(root, { identity: { name: "test", email: "test@localhost" } });
  for (let i = 0; i < COUNT; i++)
    write(`data/ops/c${i}.md`, `---\ntype: note\ntitle: Item ${i}\n---\nword${i} gateway\n`);
  store = await openKb({ name: "kb", root, allowArtifactWrite: false } as never);
});

describe("rebuildKbIndex", () => {
  it("lets other work run between its batches, which sees the rows indexed so far", async () => {
    const { index } = await openKbIndex(store);
    try {
      let seenMidway: number | undefined;
      let asked = false;
      await rebuildKbIndex(store, {
        index,
        onProgress: (done, total) => {
          if (asked || done === 0 || done >= total) return;
          asked = true;
          setImmediate(() => {
            seenMidway = index.count();
          });
        },
      });
      expect(asked).toBe(true);
      expect(seenMidway).toBeGreaterThan(0);
      expect(seenMidway).toBeLessThan(COUNT);
      expect(index.count()).toBe(COUNT);
    } finally {
      index.close();
    }
  });

  it("counts what changed since the previous content", async () => {
    const { index } = await openKbIndex(store);
    index.close();
    write("data/ops/c1.md", "---\ntype: note\ntitle: Changed\n---\nnew text\n");
    fs.rmSync(path.join(root, "data/ops/c2.md"));
    write("data/ops/extra.md", "---\ntype: note\ntitle: Extra\n---\nextra\n");
    const stats = await rebuildKbIndex(store);
    expect(stats).toEqual({ added: 1, changed: 1, removed: 1, unchanged: COUNT - 2 });
  });
});
