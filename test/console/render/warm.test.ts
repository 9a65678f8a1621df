/**
 * The start pass of RenderWarmer over a real mounted KB (real git, real SQLite index): the
 * largest concepts first, found from the index's stored sizes, bounded in count, stopping before
 * the cache's byte bound, and saying what it did on the logger; writes through the runtime are
 * rendered ahead too, their queue bounded.
 */
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { RenderCache } from "../../../src/console/render/cache.js";
import { RenderWarmer } from "../../../src/console/render/warm.js";
import type { Logger } from "../../../src/logger.js";
import { silentLogger } from "../../../src/logger.js";
import { closeMount, type MountedKb, mountKb } from "../../../src/runtime/mount.js";
import { reindexPaths } from "../../../src/runtime/mount-sync.js";
import { seedKb, testKbSettings } from "../../support/kb.js";
import { useTempDirs } from "../../support/temp-dir.js";

const dirs = useTempDirs("carto-warm-");
const mounts: MountedKb[] = [];
afterEach(async () => {
  for (const m of mounts.splice(0)) await closeMount(m).catch(() => {});
});

const SIZES: Record<string, number> = { a: 40_000, b: 50_000, c: 60_000, d: 70_000, e: 80_000 };

function concept(chars: number): string {
  const line = "A line of text with a [[m/a]] link and `code`.\n\n";
  return `---\ntype: note\n---\n${line.repeat(Math.ceil(chars / line.length))}`;
}

async function mounted(): Promise<MountedKb> {
  const root = join(dirs(), "kb");
  const files: Record<string, string> = {
    "data/m/_map.md": "---\ntype: Map\ntitle: M\nkind: map\n---\n",
    "data/m/small.md": "---\ntype: note\n---\nsmall\n",
  };
  for (const [leaf, size] of Object.entries(SIZES)) files[`data/m/${leaf}.md`] = concept(size);
  await seedKb(root, files);
  const mount = await mountKb(testKbSettings(root, { name: "w" }), { logger: silentLogger });
  mounts.push(mount);
  return mount;
}

function recorder(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  return { lines, logger: { info: (m) => lines.push(m), warn: () => {}, error: () => {} } };
}

const kept = (cache: RenderCache, mount: MountedKb) =>
  Object.keys(SIZES).filter((leaf) => {
    const row = mount.runtime.index.indexedFilesOf([`m/${leaf}`]).get(`m/${leaf}`);
    return row !== undefined && cache.has({ kb: "w", fromPath: row.path }, row.hash);
  });

describe("RenderWarmer start pass", () => {
  it("renders the largest concepts first, at most maxConcepts, reading the index in pages", async () => {
    const mount = await mounted();
    const cache = new RenderCache();
    const log = recorder();
    const warmer = new RenderWarmer({ cache, maxConcepts: 3, pageRows: 2, logger: log.logger });
    warmer.watch("w", mount.runtime);
    await warmer.settled();
    warmer.stop();
    expect(kept(cache, mount)).toEqual(["c", "d", "e"]);
    expect(cache.counters.backgroundRenders).toBe(3);
    expect(log.lines).toEqual([
      expect.stringMatching(/^console: rendered ahead 3 large concept\(s\) of KB 'w' in \d+ ms$/),
    ]);
  });

  it("stops before the cache's byte bound would be exceeded, and says so", async () => {
    const mount = await mounted();
    // Room for some of the five renderings, not all (each is a few hundred KB).
    const cache = new RenderCache(1_000_000);
    const log = recorder();
    const warmer = new RenderWarmer({ cache, logger: log.logger });
    warmer.watch("w", mount.runtime);
    await warmer.settled();
    warmer.stop();
    // The largest first, and never past the bound: no rendering was evicted to make room.
    const got = kept(cache, mount);
    expect(got.length).toBeGreaterThan(0);
    expect(got.length).toBeLessThan(5);
    expect(got).toEqual(["a", "b", "c", "d", "e"].slice(5 - got.length));
    expect(cache.counters.backgroundRenders).toBe(got.length);
    expect(cache.bytes).toBeLessThanOrEqual(cache.maxBytes);
    expect(log.lines[0]).toMatch(
      new RegExp(`rendered ahead ${got.length} .* \\(stopped: the render cache is full\\)$`),
    );
  });

  it("renders a large concept a write leaves, not a small one; drops the oldest past maxQueued", async () => {
    const mount = await mounted();
    const cache = new RenderCache();
    const warmer = new RenderWarmer({ cache, maxConcepts: 0, maxQueued: 1 });
    warmer.watch("w", mount.runtime);
    await warmer.settled();
    expect(cache.counters.backgroundRenders).toBe(0);
    const docs = await Promise.all(
      ["m/a", "m/b", "m/small"].map((id) => mount.runtime.store.tryReadConcept(id)),
    );
    // One index change naming three concepts: only the last large one stays queued.
    await mount.runtime.syncIndex(["m/a", "m/b", "m/small"]);
    await warmer.settled();
    warmer.stop();
    expect(docs.every((d) => d !== null)).toBe(true);
    expect(kept(cache, mount)).toEqual(["b"]);
    expect(cache.counters.backgroundRenders).toBe(1);
  });

  it("renders a large concept a pull brings in (the pull's re-index announces it)", async () => {
    const mount = await mounted();
    const cache = new RenderCache();
    const warmer = new RenderWarmer({ cache, maxConcepts: 0 });
    warmer.watch("w", mount.runtime);
    await warmer.settled();
    expect(cache.counters.backgroundRenders).toBe(0);
    // What a pull calls with the paths of `git diff old new` (mount-sync.ts onHeadMoved).
    await reindexPaths(mount.runtime, ["data/m/e.md", "data/m/small.md"]);
    await warmer.settled();
    warmer.stop();
    expect(kept(cache, mount)).toEqual(["e"]);
    expect(cache.counters.backgroundRenders).toBe(1);
  });
});
