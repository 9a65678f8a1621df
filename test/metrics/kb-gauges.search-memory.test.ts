/**
 * A KB large enough for the search memories (10,000 concepts) on a real HTTP server with the
 * official SDK client: both memories become ready (the metrics say so), a concept written through
 * `concept_write` is found at once, and the searches after the write are still answered from
 * memory, the written concept read anew beside the snapshot (docs/decisions.md "The search
 * memories serve through writes").
 */
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/logger.js";
import { closeMount, type MountedKb, mountKb } from "../../src/runtime/mount.js";
import { seedKb, testKbSettings } from "../support/kb.js";
import { manyConcepts } from "../support/many-concepts.js";
import { tempDir } from "../support/temp-dir.js";
import {
  type MeteredServer,
  parseScrape,
  sampleValue,
  sdkClient,
  serveMetered,
} from "./helpers.js";

const CONCEPTS = 10_000;
const tmp = tempDir("carto-memory-writes-");
let mount: MountedKb;
let server: MeteredServer;
let client: Client;

async function scrape(name: string, labels: Record<string, string> = {}): Promise<number> {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  return sampleValue(parseScrape(text), name, { kb: "big", ...labels });
}

async function search(query: string): Promise<string[]> {
  const result = (await client.callTool({ name: "search", arguments: { query } })) as {
    content: Array<{ text: string }>;
  };
  const answer = JSON.parse(result.content[0]?.text ?? "{}") as { results: Array<{ id: string }> };
  return answer.results.map((r) => r.id);
}

beforeAll(async () => {
  const root = join(tmp.dir, "kb");
  await seedKb(root, manyConcepts(CONCEPTS, 200));
  mount = await mountKb(testKbSettings(root, { name: "big" }), { logger: silentLogger });
  server = await serveMetered([mount], { logger: silentLogger });
  client = await sdkClient(`${server.url}/mcp/big`);
  const deadline = Date.now() + 120_000;
  while ((await scrape("cartographer_search_word_memory_state", { state: "ready" })) !== 1) {
    if (Date.now() > deadline) throw new Error("the word memory did not become ready");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}, 180_000);

afterAll(async () => {
  await client?.close();
  await server?.close();
  await closeMount(mount).catch(() => {});
  tmp.cleanup();
});

describe("the search memories of a 10,000-concept KB over HTTP", () => {
  it("answer from memory before and after a concept_write, finding what was written", async () => {
    expect(await scrape("cartographer_search_memory_state", { state: "ready" })).toBe(1);
    expect(await scrape("cartographer_search_memory_bytes")).toBeGreaterThan(0);
    expect(await search("gateway resolver")).toHaveLength(10);
    const before = await scrape("cartographer_search_memory_served_total");
    expect(before).toBeGreaterThan(0);

    await client.callTool({
      name: "concept_write",
      arguments: {
        id: "a/zanzibar-quokka",
        frontmatter: { type: "note", title: "Zanzibar quokka gateway" },
        body: "The quokka — a resolver of last resort.\n",
      },
    });
    expect(await search("zanzibar quokka")).toEqual(["a/zanzibar-quokka"]);
    expect(await search("quokka resolver")).toEqual(["a/zanzibar-quokka"]);
    // Still ready, and those searches ranked from memory (the snapshot and the written concept).
    expect(await scrape("cartographer_search_memory_state", { state: "ready" })).toBe(1);
    expect(await scrape("cartographer_search_memory_served_total")).toBeGreaterThan(before);
  });
});
