/**
 * resources/list and completions on a KB whose index is still building: they wait for the build
 * as search does (bounded, 2 s), and when it is still under way they say the answer is partial
 * (`_meta["cartographer/index_building"]` per KB; completions `hasMore: true`) instead of
 * answering 0 concepts, one page, no cursor. Real KBs (git, SQLite), the SDK Client.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { afterEach, describe, expect, it } from "vitest";
import type { KbSettings } from "../../src/kb/core/types.js";
import { initKb } from "../../src/kb/store/init.js";
import { memoryLogger } from "../../src/logger.js";
import { type Cartographer, createCartographer } from "../../src/mcp/app.js";
import { LOCAL_ADMIN } from "../../src/mcp/context.js";
import { INDEX_BUILDING_META } from "../../src/mcp/kb-content.js";
import { createMcpServer } from "../../src/mcp/server.js";
import { stdioSurfaceOf } from "../../src/mcp/stdio.js";
import { IndexBuildScheduler } from "../../src/runtime/index-build.js";
import { TEST_AUTHOR } from "../support/mcp-kit.js";
import { useTempDirs } from "../support/temp-dir.js";

const tempDir = useTempDirs("carto-res-build-");
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const CONCEPTS = 30;

async function kbWith(dir: string, name: string): Promise<KbSettings> {
  const root = join(dir, name);
  await initKb(root, { gitAuthor: TEST_AUTHOR });
  for (let i = 0; i < CONCEPTS; i++)
    await writeFile(
      join(root, "data", `c${String(i).padStart(2, "0")}.md`),
      `---\ntype: note\ntitle: Note ${i}\n---\nbody ${i}\n`,
    );
  return { name, root, allowArtifactWrite: false, gitAuthor: TEST_AUTHOR, autocommit: true };
}

/** An app over `names` whose index builds wait until release() is called. */
async function heldApp(names: string[]): Promise<{ app: Cartographer; release: () => void }> {
  const dir = tempDir();
  const kbs: KbSettings[] = [];
  for (const name of names) kbs.push(await kbWith(dir, name));
  const scheduler = new IndexBuildScheduler(1);
  let release = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  scheduler.schedule(() => gate);
  const app = await createCartographer({ kbs, logger: memoryLogger(), indexBuilds: scheduler });
  cleanups.push(() => app.close());
  return { app, release };
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

const conceptUris = (uris: string[]) => uris.filter((u) => /\/c\d\d$/.test(u));

describe("resources/list while the index builds", () => {
  it("waits for a build that ends within the bound and lists every concept", async () => {
    const { app, release } = await heldApp(["notes"]);
    const client = await clientOf(app);
    const listing = client.listResources();
    // Released while resources/list waits: it answers only once the build is done.
    setTimeout(release, 200);
    const page = await listing;
    expect(conceptUris(page.resources.map((r) => r.uri))).toHaveLength(CONCEPTS);
    expect(page._meta?.[INDEX_BUILDING_META]).toBeUndefined();
  });

  it("says the page is partial when the build is still under way after the bound", async () => {
    const { app, release } = await heldApp(["notes"]);
    const client = await clientOf(app);
    const page = await client.listResources();
    expect(page._meta?.[INDEX_BUILDING_META]).toEqual({
      notes: { state: "queued", done: 0, total: 0 },
    });
    const completion = await client.complete({
      ref: { type: "ref/resource", uri: "cartographer://notes/{+id}" },
      argument: { name: "id", value: "c" },
    });
    expect(completion.completion.hasMore).toBe(true);

    release();
    const full = await client.listResources();
    expect(conceptUris(full.resources.map((r) => r.uri))).toHaveLength(CONCEPTS);
    expect(full._meta?.[INDEX_BUILDING_META]).toBeUndefined();
    const done = await client.complete({
      ref: { type: "ref/resource", uri: "cartographer://notes/{+id}" },
      argument: { name: "id", value: "c" },
    });
    expect(done.completion.values).toHaveLength(CONCEPTS);
    expect(done.completion.hasMore).toBe(false);
  }, 20_000);

  it("routed: names the KBs whose index is still building", async () => {
    const { app, release } = await heldApp(["one", "two"]);
    const client = await clientOf(app);
    const page = await client.listResources();
    const building = page._meta?.[INDEX_BUILDING_META] as Record<string, unknown>;
    expect(Object.keys(building)).toContain("one");
    expect(page.nextCursor).toBeDefined();
    release();
  }, 20_000);
});
