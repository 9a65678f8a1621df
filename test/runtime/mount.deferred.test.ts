/**
 * A served mount attaches remote sync after it is served (docs/decisions.md "A served KB attaches
 * remote sync"): mountKb with a build scheduler returns before any git process runs, so 50 KBs no
 * longer spawn 50 `git remote` processes before the initialize answer; every tool call waits for
 * the attach, and a failed attach is answered by the KB's calls. Its index file opens at first use.
 * Real git (a local bare remote), SQLite and the real pipeline.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { KbError } from "../../src/common/errors.js";
import type { KbSettings } from "../../src/kb/core/types.js";
import { memoryLogger } from "../../src/logger.js";
import { LOCAL_ADMIN } from "../../src/mcp/context.js";
import { surfaceForMount } from "../../src/mcp/surface-for-mount.js";
import { IndexBuildScheduler } from "../../src/runtime/index-build.js";
import { ATTACH_DELAY_MS, closeMount, type MountedKb, mountKb } from "../../src/runtime/mount.js";
import { seedKb, testKbSettings } from "../support/kb.js";
import { TEST_AUTHOR } from "../support/mcp-kit.js";
import {
  bareRemote,
  gitSync,
  jsonOf,
  type Remote,
  syncSettings,
  textOf,
} from "../support/sync-remote.js";
import { useTempDirs } from "../support/temp-dir.js";

const newDir = useTempDirs("carto-deferred-");

let remote: Remote | undefined;
const mounts: MountedKb[] = [];
afterEach(async () => {
  for (const m of mounts.splice(0)) await closeMount(m);
  await remote?.cleanup();
  remote = undefined;
});

const ctx = { principal: LOCAL_ADMIN, transport: "in-memory" as const, requestId: "" };

async function clonedKb(): Promise<KbSettings> {
  remote = await bareRemote();
  const root = join(remote.dir, "clone");
  gitSync(remote.dir, "clone", "-q", remote.bare, root);
  return {
    name: "kb",
    root,
    allowArtifactWrite: false,
    gitAuthor: TEST_AUTHOR,
    autocommit: true,
    sync: syncSettings(),
  };
}

describe("served mount: sync attaches after the KB is served", () => {
  it("mountKb returns before remote sync attaches; the first call waits for it and sees the remote", async () => {
    const settings = await clonedKb();
    const logger = memoryLogger();
    const mount = await mountKb(settings, { logger, builds: new IndexBuildScheduler(1) });
    mounts.push(mount);
    // Nothing git-related ran before the mount was handed to the server.
    expect(mount.runtime.sync).toBeUndefined();
    const surface = surfaceForMount(mount, { logger });
    const status = jsonOf(await surface.callTool("sync_status", {}, ctx));
    // Without waiting the call would answer "no_remote".
    expect(status.state).toBe("clean");
    expect(mount.runtime.sync?.active).toBe(true);
  });

  it("without a call the attach starts by itself shortly after; a mount closed before never attaches", async () => {
    const settings = await clonedKb();
    const logger = memoryLogger();
    const idle = await mountKb(settings, { logger, builds: new IndexBuildScheduler(1) });
    mounts.push(idle);
    await vi.waitFor(() => expect(idle.runtime.sync?.active).toBe(true), {
      timeout: ATTACH_DELAY_MS + 10_000,
    });
    await closeMount(mounts.pop() as MountedKb);
    const closed = await mountKb(settings, { logger, builds: new IndexBuildScheduler(1) });
    await closeMount(closed);
    await new Promise((r) => setTimeout(r, ATTACH_DELAY_MS + 200));
    expect(closed.runtime.sync).toBeUndefined();
  });

  it("the attach without a call waits for attachAfter (the server has opened every KB)", async () => {
    const settings = await clonedKb();
    const logger = memoryLogger();
    let opened = () => {};
    const attachAfter = new Promise<void>((resolve) => {
      opened = resolve;
    });
    const mount = await mountKb(settings, {
      logger,
      builds: new IndexBuildScheduler(1),
      attachAfter,
    });
    mounts.push(mount);
    await new Promise((r) => setTimeout(r, ATTACH_DELAY_MS + 300));
    expect(mount.runtime.sync).toBeUndefined();
    opened();
    await vi.waitFor(() => expect(mount.runtime.sync?.active).toBe(true), {
      timeout: ATTACH_DELAY_MS + 10_000,
    });
  });

  it("a failed attach is answered by the KB's calls, with its code", async () => {
    const settings = await clonedKb();
    const logger = memoryLogger();
    const mount = await mountKb(settings, { logger, builds: new IndexBuildScheduler(1) });
    mounts.push(mount);
    await mount.runtime.ready?.();
    mount.runtime.ready = () =>
      Promise.reject(new KbError("git_failed", "git remote get-url failed"));
    const surface = surfaceForMount(mount, { logger });
    const result = await surface.callTool("concept_read", { id: "index" }, ctx);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^git_failed: git remote get-url failed/);
  });
});

describe("served mount: the index file opens at first use", () => {
  it("no index file after mounting; the first search creates it; closing an unused mount creates none", async () => {
    const root = join(newDir(), "kb");
    await seedKb(root, { "data/note.md": "---\ntype: note\ntitle: Gateway\n---\ngateway\n" });
    const file = join(root, ".cartographer", "index.db");
    const logger = memoryLogger();
    const held = new IndexBuildScheduler(1);
    held.pause(); // the build (which would open it) does not start
    const unused = await mountKb(testKbSettings(root), { logger, builds: held });
    expect(existsSync(file)).toBe(false);
    await closeMount(unused);
    expect(existsSync(file)).toBe(false);

    const mount = await mountKb(testKbSettings(root), {
      logger,
      builds: new IndexBuildScheduler(1),
    });
    mounts.push(mount);
    const surface = surfaceForMount(mount, { logger });
    const found = jsonOf(await surface.callTool("search", { query: "gateway" }, ctx));
    expect(found.results).toHaveLength(1);
    expect(existsSync(file)).toBe(true);
  });
});
