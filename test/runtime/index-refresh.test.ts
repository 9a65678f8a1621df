/**
 * The background index refresh: edits made outside the server (an editor, `git pull`) reach
 * search and concept_list without a restart, and closing the mount stops it cleanly.
 */
import { unlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { KbStore } from "../../src/kb/core/api.js";
import { VISIBLE_ALL } from "../../src/kb/core/types.js";
import { initKb } from "../../src/kb/store/init.js";
import { memoryLogger, silentLogger } from "../../src/logger.js";
import { startIndexRefresh } from "../../src/runtime/index-refresh.js";
import { closeMount, type MountedKb, mountKb } from "../../src/runtime/mount.js";
import { openKbIndex } from "../../src/search/kb-index.js";
import type { SqliteSearchIndex } from "../../src/search/sqlite-index.js";
import { TEST_AUTHOR } from "../support/mcp-kit.js";
import { useTempDirs } from "../support/temp-dir.js";

// Registered before the hook closing the mounts, so the dir goes after they are closed.
const newDir = useTempDirs("carto-refresh-");
let root: string;
const open: MountedKb[] = [];

const concept = (title: string, body: string) => `---\ntype: note\ntitle: ${title}\n---\n${body}\n`;

beforeEach(async () => {
  root = join(newDir(), "kb");
  await initKb(root, { gitAuthor: TEST_AUTHOR });
  await writeFile(join(root, "data", "alpha.md"), concept("Alpha", "The alpha gateway."));
  await writeFile(join(root, "data", "beta.md"), concept("Beta", "Beta keeps backups."));
});
afterEach(async () => {
  for (const m of open.splice(0)) await closeMount(m);
});

async function mount(indexRefreshMs: number, logger = silentLogger): Promise<MountedKb> {
  const m = await mountKb(
    { name: "kb", root, allowArtifactWrite: false, autocommit: true, gitAuthor: TEST_AUTHOR },
    { logger, indexRefreshMs },
  );
  open.push(m);
  return m;
}

const hits = (m: MountedKb, query: string) =>
  m.index
    .search({ query, limit: 10, visibility: VISIBLE_ALL })
    .results.map((r) => r.id)
    .sort();
const listed = (m: MountedKb) =>
  m.index
    .list({ limit: 50, visibility: VISIBLE_ALL })
    .items.map((i) => i.id)
    .sort();

/** Polls `check` until it passes or the deadline (far above one refresh) runs out. */
async function eventually(check: () => void, deadlineMs = 10_000): Promise<void> {
  const end = Date.now() + deadlineMs;
  for (;;) {
    try {
      check();
      return;
    } catch (err) {
      if (Date.now() > end) throw err;
      await new Promise((r) => setTimeout(r, 25));
    }
  }
}

/** The real store, with a hook run before every scan (to hold a refresh in progress, or fail it). */
function hookedStore(store: KbStore, beforeScan: () => Promise<void>): KbStore {
  return new Proxy(store, {
    get(target, key) {
      // Every reconcile pass reads the maps once, first (a warm pass may not walk the files).
      if (key === "maps")
        return async () => {
          await beforeScan();
          return target.maps();
        };
      const value = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

describe("background index refresh", () => {
  it("an external edit, a new file and a deleted file reach search and listing within a refresh", async () => {
    const m = await mount(200);
    expect(hits(m, "gateway")).toEqual(["alpha"]);
    expect(listed(m)).toContain("beta");
    // What a refresh indexed is announced as a write's index change is (the console renders
    // large concepts ahead from it).
    const announced: string[] = [];
    m.runtime.onIndexed((ids, docs) => {
      ids.forEach((id, i) => {
        if (docs[i]?.id === id) announced.push(id);
      });
    });

    await writeFile(join(root, "data", "alpha.md"), concept("Alpha", "The alpha router."));
    await writeFile(join(root, "data", "gamma.md"), concept("Gamma", "Gamma is a new gateway."));
    await unlink(join(root, "data", "beta.md"));

    await eventually(() => {
      expect(hits(m, "gateway")).toEqual(["gamma"]);
      expect(hits(m, "router")).toEqual(["alpha"]);
      expect(hits(m, "backups")).toEqual([]);
      expect(listed(m)).toContain("gamma");
      expect(listed(m)).not.toContain("beta");
      expect(announced.sort()).toEqual(["alpha", "gamma"]);
    });
  });

  it("0 disables it: an external edit stays unseen", async () => {
    const m = await mount(0);
    expect(m.refresh).toBeUndefined();
    await writeFile(join(root, "data", "gamma.md"), concept("Gamma", "Gamma is a new gateway."));
    await new Promise((r) => setTimeout(r, 600));
    expect(hits(m, "gateway")).toEqual(["alpha"]);
  });

  it("closeMount waits for a refresh under way, which never overlaps, and nothing runs after", async () => {
    const base = await mount(0);
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    let scans = 0;
    const store = hookedStore(base.store, async () => {
      scans++;
      await gate;
    });
    const logger = memoryLogger();
    const index = base.index as SqliteSearchIndex;
    const refresh = startIndexRefresh(store, index, { intervalMs: 20, logger, kb: "kb" });
    const m: MountedKb = { ...base, store, refresh };
    await writeFile(join(root, "data", "gamma.md"), concept("Gamma", "Gamma is a new gateway."));
    await eventually(() => expect(scans).toBe(1));
    await new Promise((r) => setTimeout(r, 200)); // ten intervals: still the one run
    expect(scans).toBe(1);

    let closed = false;
    const closing = closeMount(m).then(() => {
      closed = true;
    });
    await new Promise((r) => setTimeout(r, 100));
    expect(closed).toBe(false);
    release();
    await closing;
    // The run finished before the index closed: its result is in the file.
    expect(logger.lines).toEqual(["info: index refresh of KB 'kb': 1 added, 0 changed, 0 removed"]);
    await new Promise((r) => setTimeout(r, 100));
    expect(scans).toBe(1);
    expect(logger.lines).toHaveLength(1);
    const reopened = await openKbIndex(base.store);
    expect(reopened.stats.added).toBe(0);
    reopened.index.close();
  });

  it("a refresh waits for the KB write lock, so it never interleaves with a tool write", async () => {
    const base = await mount(0);
    let scans = 0;
    const store = hookedStore(base.store, async () => {
      scans++;
    });
    let release!: () => void;
    const held = base.store.withLock(
      () =>
        new Promise<void>((r) => {
          release = r;
        }),
    );
    const refresh = startIndexRefresh(store, base.index as SqliteSearchIndex, {
      intervalMs: 20,
      logger: silentLogger,
      kb: "kb",
    });
    await writeFile(join(root, "data", "gamma.md"), concept("Gamma", "Gamma is a new gateway."));
    await new Promise((r) => setTimeout(r, 200)); // ten intervals, all behind the lock
    expect(scans).toBe(0);
    release();
    await held;
    await eventually(() => expect(hits(base, "gateway")).toEqual(["alpha", "gamma"]));
    await refresh.stop();
  });

  it("a failing refresh warns once per run of failures, recovers, and never throws", async () => {
    const base = await mount(0);
    let failures = 3;
    const store = hookedStore(base.store, async () => {
      if (failures > 0) {
        failures--;
        throw new Error("disk on fire");
      }
    });
    const logger = memoryLogger();
    const refresh = startIndexRefresh(store, base.index as SqliteSearchIndex, {
      intervalMs: 20,
      logger,
      kb: "kb",
    });
    await writeFile(join(root, "data", "gamma.md"), concept("Gamma", "Gamma is a new gateway."));
    await eventually(() => expect(hits(base, "gateway")).toEqual(["alpha", "gamma"]));
    await refresh.stop();
    const warnings = logger.lines.filter((l) => l.startsWith("warn:"));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/index refresh of KB 'kb' failed: disk on fire/);
    expect(logger.lines).toContain("info: index refresh of KB 'kb' works again");
  });
});
