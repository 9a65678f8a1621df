/**
 * Serve first, index in the background (docs/decisions.md "The server answers first"): the
 * composition root serves a KB before its index is built; a search before the build ends waits up
 * to 2 s, then answers from what is indexed with `index: {state, done, total}`; builds share a
 * bounded worker budget; one KB's build never holds up another KB's calls. Real KBs (git, SQLite)
 * and the SDK Client.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { KbSettings } from "../../src/kb/core/types.js";
import { initKb } from "../../src/kb/store/init.js";
import { memoryLogger } from "../../src/logger.js";
import { type Cartographer, createCartographer } from "../../src/mcp/app.js";
import { LOCAL_ADMIN } from "../../src/mcp/context.js";
import { createMcpServer } from "../../src/mcp/server.js";
import { stdioSurfaceOf } from "../../src/mcp/stdio.js";
import { IndexBuildScheduler } from "../../src/runtime/index-build.js";
import { BuildStatus } from "../../src/search/build-status.js";
import { TEST_AUTHOR } from "../support/mcp-kit.js";
import { useTempDirs } from "../support/temp-dir.js";

// Registered before the cleanups hook, so the dirs go after apps and clients are closed.
const tempDir = useTempDirs("carto-build-");
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function kbWith(dir: string, name: string, concepts: number): Promise<KbSettings> {
  const root = join(dir, name);
  await initKb(root, { gitAuthor: TEST_AUTHOR });
  const writes: Array<Promise<void>> = [];
  for (let i = 0; i < concepts; i++)
    writes.push(
      writeFile(
        join(root, "data", `c${i}.md`),
        `---\ntype: note\ntitle: Note ${i}\n---\nthe gateway number ${i} of ${name}\n`,
      ),
    );
  await Promise.all(writes);
  return { name, root, allowArtifactWrite: false, gitAuthor: TEST_AUTHOR, autocommit: true };
}

async function clientOf(app: Cartographer): Promise<Client> {
  const server = createMcpServer(stdioSurfaceOf(app), {
    name: "cartographer",
    version: "test",
    profile: "agent",
    principal: LOCAL_ADMIN,
    transport: "in-memory",
  });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const client = new Client({ name: "t", version: "1" });
  cleanups.push(() => client.close());
  await client.connect(b);
  return client;
}

function json(result: unknown): Record<string, unknown> {
  const r = result as { content: Array<{ text: string }>; isError?: boolean };
  expect(r.isError ?? false).toBe(false);
  return JSON.parse(r.content[0]?.text ?? "null");
}

/** Holds every slot of `scheduler` until the returned release() is called. */
function holdSlots(scheduler: IndexBuildScheduler): () => void {
  let release = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  for (let i = 0; i < scheduler.concurrency; i++) scheduler.schedule(() => gate);
  return release;
}

describe("background index build", () => {
  it("initialize and tools/list answer before the build starts; a search then answers from what is indexed, saying so; after the build it answers in full", async () => {
    const dir = tempDir();
    const kb = await kbWith(dir, "notes", 30);
    const scheduler = new IndexBuildScheduler(1);
    const release = holdSlots(scheduler);
    const app = await createCartographer({
      kbs: [kb],
      logger: memoryLogger(),
      indexBuilds: scheduler,
    });
    cleanups.push(() => app.close());
    expect(app.kbs[0]?.index?.state).toBe("queued");
    const client = await clientOf(app);
    // Event order, not time: the build has not even started while these answer.
    expect((await client.listTools()).tools.some((t) => t.name === "search")).toBe(true);
    expect(app.kbs[0]?.index?.state).toBe("queued");
    const read = json(await client.callTool({ name: "concept_read", arguments: { id: "c3" } }));
    expect(read.id).toBe("c3");
    const partial = json(
      await client.callTool({ name: "search", arguments: { query: "gateway" } }),
    );
    expect(partial.index).toEqual({ state: "queued", done: 0, total: 0 });
    expect(partial.results).toEqual([]);
    const status = json(await client.callTool({ name: "kb_status", arguments: {} }));
    expect(status.index).toMatchObject({ state: "queued", count: 0 });

    release();
    const full = json(
      await client.callTool({ name: "search", arguments: { query: "gateway", limit: 50 } }),
    );
    // The search waited for the build (well under 2 s on 30 concepts) and answers in full.
    expect(full.index).toBeUndefined();
    expect((full.results as unknown[]).length).toBe(30);
    expect(app.kbs[0]?.index).toMatchObject({ state: "ready", done: 30, total: 30 });
  });

  it("a second KB builds and answers (search in full, reads) while the first KB's build holds a slot", async () => {
    const dir = tempDir();
    const big = await kbWith(dir, "big", 600);
    const small = await kbWith(dir, "small", 3);
    // Big's build (the first KB configured: order 0) waits for release() inside its slot:
    // event order. KBs are opened several at a time, so which schedules first is not fixed.
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    class FirstBuildGated extends IndexBuildScheduler {
      override schedule(job: Parameters<IndexBuildScheduler["schedule"]>[0], order?: number) {
        if (order !== 0) return super.schedule(job, order);
        return super.schedule(async (signal) => {
          await gate;
          await job(signal);
        }, order);
      }
    }
    const app = await createCartographer({
      kbs: [big, small],
      logger: memoryLogger(),
      indexBuilds: new FirstBuildGated(2),
    });
    cleanups.push(() => app.close());
    const client = await clientOf(app);
    const found = json(
      await client.callTool({ name: "search", arguments: { kb: "small", query: "gateway" } }),
    );
    expect(found.index).toBeUndefined();
    expect((found.results as unknown[]).length).toBe(3);
    expect(app.kbs[0]?.index?.state).not.toBe("ready");
    const read = json(
      await client.callTool({ name: "concept_read", arguments: { kb: "big", id: "c599" } }),
    );
    expect(read.id).toBe("c599");
    release();
    const all = json(
      await client.callTool({
        name: "search",
        arguments: { kb: "big", query: "gateway", limit: 5 },
      }),
    );
    expect(all.index).toBeUndefined();
    expect(app.kbs[0]?.index).toMatchObject({ state: "ready", total: 600 });
  });

  it("a build under way (CPU on this thread) never holds another KB's call until it ends", async () => {
    const dir = tempDir();
    const big = await kbWith(dir, "big", 3000);
    const small = await kbWith(dir, "small", 3);
    const app = await createCartographer({
      kbs: [big, small],
      logger: memoryLogger(),
      indexBuilds: new IndexBuildScheduler(1),
    });
    cleanups.push(() => app.close());
    const client = await clientOf(app);
    // Small's build waits behind big's (one slot); its reads need no index.
    await vi.waitFor(() => expect(app.kbs[0]?.index?.done).toBeGreaterThan(0), {
      timeout: 30_000,
      interval: 5,
    });
    const read = json(
      await client.callTool({ name: "concept_read", arguments: { kb: "small", id: "c1" } }),
    );
    expect(read.id).toBe("c1");
    // Answered between two batches of big's build, not after it.
    const { state, done, total } = app.kbs[0]?.index ?? {};
    expect(state).toBe("building");
    expect(done).toBeLessThan(total as number);
  });

  /** An app serving one KB of `count` concepts whose build waits until `release()`. */
  async function appWithBuildHeld(count: number) {
    const kb = await kbWith(tempDir(), "notes", count);
    const scheduler = new IndexBuildScheduler(1);
    const release = holdSlots(scheduler);
    const app = await createCartographer({
      kbs: [kb],
      logger: memoryLogger(),
      indexBuilds: scheduler,
    });
    cleanups.push(() => app.close());
    return { app, client: await clientOf(app), release };
  }

  /** Whether `call` settles within `ms`. */
  const answeredWithin = (call: Promise<unknown>, ms: number) =>
    Promise.race([
      call.then(() => true),
      new Promise<boolean>((r) => setTimeout(() => r(false), ms)),
    ]);

  it("reindex during a background build waits for it, then reconciles and reports progress", async () => {
    const { client, release } = await appWithBuildHeld(30);
    const seen: Array<{ progress: number; total?: number }> = [];
    const call = client.request(
      { method: "tools/call", params: { name: "reindex", arguments: {} } },
      CallToolResultSchema,
      { onprogress: (p) => seen.push(p) },
    );
    expect(await answeredWithin(call, 300)).toBe(false); // the build has not run: reindex waits for it
    release();
    const stats = json(await call);
    expect(stats.total).toBe(30);
    expect(seen.at(-1)).toMatchObject({ progress: 30, total: 30 });
    expect(seen.length).toBeGreaterThanOrEqual(2);
  });

  it("index_rebuild during a background build waits for it, then rebuilds; the KB reads ready", async () => {
    const { app, client, release } = await appWithBuildHeld(30);
    const call = client.callTool({ name: "index_rebuild", arguments: {} });
    expect(await answeredWithin(call, 300)).toBe(false); // two passes never run over one index at once
    expect(app.kbs[0]?.index?.state).toBe("queued");
    release();
    const stats = json(await call);
    expect(stats).toMatchObject({ unchanged: 30, added: 0, removed: 0, total: 30 });
    expect(app.kbs[0]?.index).toMatchObject({ state: "ready", done: 30, total: 30 });
  });

  it("closing the app mid-build stops the build and releases the KB", async () => {
    const dir = tempDir();
    const kb = await kbWith(dir, "notes", 600);
    const app = await createCartographer({ kbs: [kb], logger: memoryLogger() });
    await app.close();
    expect(["queued", "building", "ready"]).toContain(app.kbs[0]?.index?.state);
    // The lock is free again: a second app opens the KB and completes the build.
    const again = await createCartographer({ kbs: [kb], logger: memoryLogger() });
    cleanups.push(() => again.close());
    expect(again.surfaces.has("notes")).toBe(true);
  });
});

describe("IndexBuildScheduler", () => {
  it("runs at most `concurrency` builds at once, in order; a cancelled queued build never runs", async () => {
    const scheduler = new IndexBuildScheduler(2);
    let running = 0;
    let peak = 0;
    const ran: number[] = [];
    const job = (n: number) => async () => {
      running++;
      peak = Math.max(peak, running);
      ran.push(n);
      await new Promise((r) => setTimeout(r, 5));
      running--;
    };
    const jobs = [1, 2, 3, 4, 5].map((n) => scheduler.schedule(job(n)));
    await jobs[3]?.cancel();
    await Promise.all(jobs.map((j) => j.finished));
    expect(peak).toBe(2);
    expect(ran).toEqual([1, 2, 3, 5]);
  });

  it("pause() holds new builds until resume(), which fills the free slots", async () => {
    const scheduler = new IndexBuildScheduler(2);
    const ran: number[] = [];
    scheduler.pause();
    const jobs = [1, 2, 3].map((n) =>
      scheduler.schedule(async () => {
        ran.push(n);
      }),
    );
    await new Promise((r) => setTimeout(r, 20));
    expect(ran).toEqual([]);
    expect(scheduler.queued).toBe(3);
    scheduler.resume();
    await Promise.all(jobs.map((j) => j.finished));
    expect(ran).toEqual([1, 2, 3]);
  });

  it("waiting builds start by ascending order, equal orders first come first served", async () => {
    const scheduler = new IndexBuildScheduler(1);
    const ran: string[] = [];
    scheduler.pause();
    const jobs = (
      [
        ["c", 3],
        ["a", 1],
        ["b", 2],
        ["a2", 1],
        ["last", undefined],
      ] as const
    ).map(([name, order]) =>
      scheduler.schedule(async () => {
        ran.push(name);
      }, order),
    );
    scheduler.resume();
    await Promise.all(jobs.map((j) => j.finished));
    expect(ran).toEqual(["a", "a2", "b", "c", "last"]);
  });

  it("a running build is aborted by cancel()", async () => {
    const scheduler = new IndexBuildScheduler(1);
    let sawAbort = false;
    const build = scheduler.schedule(
      (signal) =>
        new Promise<void>((resolve) => {
          signal.addEventListener("abort", () => {
            sawAbort = true;
            resolve();
          });
        }),
    );
    await build.cancel();
    expect(sawAbort).toBe(true);
  });
});

describe("BuildStatus", () => {
  it("settled() resolves on the build's end or after the wait, whichever is first", async () => {
    const status = new BuildStatus("building");
    const waited = status.settled(60_000);
    status.set("ready", 5, 5);
    await waited;
    const slow = new BuildStatus("building");
    await slow.settled(10);
    expect(slow.progress.state).toBe("building");
  });
});
