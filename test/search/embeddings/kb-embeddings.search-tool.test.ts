/**
 * `search {mode}` through the MCP surface (real SDK Client, temp KB with git + SQLite, the
 * embedding server on 127.0.0.1): semantic/hybrid answer from vectors the background pass
 * wrote after a tool write; a write never waits for the provider; without search.embeddings
 * the modes answer not_configured naming the key.
 */
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../../src/logger.js";
import { LOCAL_ADMIN } from "../../../src/mcp/context.js";
import { createMcpServer } from "../../../src/mcp/server.js";
import { surfaceForMount } from "../../../src/mcp/surface-for-mount.js";
import { closeMount, type MountedKb, mountKb } from "../../../src/runtime/mount.js";
import type { EmbeddingsConfig } from "../../../src/search/embeddings/config.js";
import { VERSION } from "../../../src/version.js";
import { seedKb, testKbSettings } from "../../support/kb.js";
import { useTempDirs } from "../../support/temp-dir.js";
import { type EmbeddingServer, startEmbeddingServer } from "./embedding-server.js";

let server: EmbeddingServer;
beforeAll(async () => {
  server = await startEmbeddingServer();
});
afterAll(() => server.close());

// Registered before the hook below, so it runs after it: mounts close before their dirs go.
const newDir = useTempDirs("carto-semantic-");
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  server.delayMs = 0;
  for (const c of cleanups.splice(0)) await c();
});

async function open(embeddings?: EmbeddingsConfig) {
  const root = join(newDir(), "kb");
  await seedKb(root);
  const mount: MountedKb = await mountKb(testKbSettings(root), {
    logger: silentLogger,
    ...(embeddings ? { embeddings } : {}),
  });
  const mcp = createMcpServer(surfaceForMount(mount, { logger: silentLogger }), {
    name: "cartographer",
    version: VERSION,
    profile: "agent",
    principal: LOCAL_ADMIN,
    transport: "in-memory",
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await mcp.connect(serverSide);
  const client = new Client({ name: "semantic-test", version: "1.0.0" });
  await client.connect(clientSide);
  cleanups.push(async () => {
    await client.close();
    await mcp.close();
    await closeMount(mount);
  });
  const call = async (name: string, args: Record<string, unknown>) => {
    const r = (await client.callTool({ name, arguments: args })) as CallToolResult;
    const text = r.content[0]?.type === "text" ? r.content[0].text : "";
    return { isError: r.isError === true, text };
  };
  return { mount, call };
}

const config = (): EmbeddingsConfig => ({ provider: "ollama", url: server.url, model: "fake" });

describe("search mode through the surface", () => {
  it("without search.embeddings, semantic and hybrid answer not_configured naming the key", async () => {
    const { call } = await open();
    for (const mode of ["semantic", "hybrid"]) {
      const r = await call("search", { query: "car", mode });
      expect(r.isError).toBe(true);
      expect(r.text).toMatch(
        /^not_configured: mode \w+ needs an embedding provider: set search\.embeddings/,
      );
    }
    expect((await call("search", { query: "car", mode: "keyword" })).isError).toBe(false);
  });

  it("a write returns without waiting for the provider; its concept is then found by meaning", async () => {
    const { mount, call } = await open(config());
    await mount.runtime.embeddings?.idle();
    server.delayMs = 1_500; // a slow provider
    const started = Date.now();
    const w = await call("concept_write", {
      id: "sedan",
      frontmatter: { type: "note", title: "Family sedan" },
      body: "The automobile goes to the workshop.\n",
    });
    expect(w.isError, w.text).toBe(false);
    expect(Date.now() - started).toBeLessThan(1_200);
    server.delayMs = 0;
    await mount.runtime.embeddings?.idle();
    const semantic = JSON.parse((await call("search", { query: "car", mode: "semantic" })).text);
    expect(semantic.match).toBe("semantic");
    expect(semantic.results[0].id).toBe("sedan");
    const hybrid = JSON.parse((await call("search", { query: "workshop", mode: "hybrid" })).text);
    expect(hybrid.match).toBe("hybrid");
    expect(hybrid.results[0].id).toBe("sedan");
    const keyword = JSON.parse((await call("search", { query: "car" })).text);
    expect(keyword.results).toEqual([]);
  });
});
