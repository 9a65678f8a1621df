import fs from "node:fs";
import path from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import type { KbStore } from "../../src/kb/core/api.js";
import { VISIBLE_ALL } from "../../src/kb/core/types.js";
import { initKb, openKb } from "../../src/kb/store/store.js";
import { memoryLogger } from "../../src/logger.js";
import { kbIndexPath, openKbIndex } from "../../src/search/kb-index.js";
import { rebuildKbIndex } from "../../src/search/rebuild-kb-index.js";
import { TEST_AUTHOR, testKbSettings } from "../support/kb.js";
import { useTempDirs } from "../support/temp-dir.js";

const newDir = useTempDirs("carto-kbindex-");
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
  write(
    "data/infra/_map.md",
    "---\ntype: Map\ntitle: Infra\nkind: map\nconcept_types: [note]\n---\n# Infra\n",
  );
  write("data/infra/alpha.md", concept("Alpha", "The alpha gateway routes packets."));
  write("data/infra/beta.md", concept("Beta", "Beta keeps the backups."));
  write("data/notes.md", concept("Notes", "Loose notes about the gateway."));
  store = await openKb(testKbSettings(root, { name: "kb" }));
});

const ids = (r: { results: Array<{ id: string }> }) => r.results.map((h) => h.id).sort();

describe("openKbIndex", () => {
  it("builds a missing index, then reopens it without rereading unchanged files", async () => {
    const total = (await store.scanConceptFiles()).length;
    const first = await openKbIndex(store);
    expect(first.rebuilt).toBe(true);
    expect(first.stats).toEqual({ added: total, changed: 0, removed: 0, unchanged: 0 });
    const hit = first.index.search({ query: "gateway", limit: 10, visibility: VISIBLE_ALL });
    expect(ids(hit)).toEqual(["infra/alpha", "notes"]);
    expect(
      first.index.list({ limit: 10, visibility: VISIBLE_ALL, where: ["map=infra"] }).total,
    ).toBe(2);
    first.index.close();

    const again = await openKbIndex(store);
    expect(again.rebuilt).toBe(false);
    expect(again.stats).toEqual({ added: 0, changed: 0, removed: 0, unchanged: total });
    again.index.close();
  });

  it.each([
    ["one by one", 1000],
    ["in one listing pass", 0],
  ])(
    "reconciles an external edit, a deletion and a new file, reading %s",
    async (_how, bulkReadThreshold) => {
      (await openKbIndex(store)).index.close();
      write("data/infra/alpha.md", concept("Alpha", "The alpha firewall drops packets."));
      fs.rmSync(path.join(root, "data/infra/beta.md"));
      write("data/infra/gamma.md", concept("Gamma", "Gamma watches the firewall."));
      const { index, stats, rebuilt } = await openKbIndex(store, { bulkReadThreshold });
      expect(rebuilt).toBe(false);
      expect(stats).toMatchObject({ added: 1, changed: 1, removed: 1 });
      expect(ids(index.search({ query: "firewall", limit: 10, visibility: VISIBLE_ALL }))).toEqual([
        "infra/alpha",
        "infra/gamma",
      ]);
      expect(
        index.search({ query: "backups", limit: 10, visibility: VISIBLE_ALL }).results,
      ).toEqual([]);
      index.close();
    },
  );

  it("rebuilds an index file overwritten with garbage, with a warning", async () => {
    (await openKbIndex(store)).index.close();
    const file = kbIndexPath(store);
    for (const suffix of ["-wal", "-shm"]) fs.rmSync(file + suffix, { force: true });
    fs.writeFileSync(file, "this is not a database ".repeat(500));
    const logger = memoryLogger();
    const { index, rebuilt, stats } = await openKbIndex(store, { logger });
    expect(rebuilt).toBe(true);
    expect(stats.added).toBe((await store.scanConceptFiles()).length);
    expect(logger.lines.some((l) => l.startsWith("warn: search index"))).toBe(true);
    expect(ids(index.search({ query: "gateway", limit: 10, visibility: VISIBLE_ALL }))).toEqual([
      "infra/alpha",
      "notes",
    ]);
    index.close();
  });
});

describe("rebuildKbIndex", () => {
  it("rebuilds everything, reporting progress up to the number of concept files", async () => {
    (await openKbIndex(store)).index.close();
    write("data/infra/delta.md", concept("Delta", "Delta arrived without an open."));
    const progress: Array<[number, number]> = [];
    const stats = await rebuildKbIndex(store, { onProgress: (d, t) => progress.push([d, t]) });
    const total = (await store.scanConceptFiles()).length;
    expect(stats).toEqual({ added: 1, changed: 0, removed: 0, unchanged: total - 1 });
    expect(progress.at(-1)).toEqual([total, total]);
    const { index, stats: after } = await openKbIndex(store);
    expect(after).toEqual({ added: 0, changed: 0, removed: 0, unchanged: total });
    expect(index.count()).toBe(total);
    index.close();
  });
});
