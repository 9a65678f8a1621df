/**
 * MCP content capabilities on a session that lives (stdio-like: one Server for the whole
 * connection; docs/decisions.md "Only a live session (stdio) declares"), composed as `serve` does
 * (createCartographer over a real KB): resource subscriptions and list_changed after writes,
 * warnings about the KB as notifications/message (level filtered, no server path), and
 * notifications/progress for a call that passes a progress token.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import {
  CallToolResultSchema,
  LoggingMessageNotificationSchema,
  type Progress,
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { memoryLogger } from "../../src/logger.js";
import { type Cartographer, createCartographer } from "../../src/mcp/app.js";
import { LOCAL_ADMIN } from "../../src/mcp/context.js";
import { createMcpServer } from "../../src/mcp/server.js";
import { seedKb, testKbSettings } from "../support/kb.js";
import { must } from "../support/mcp-kit.js";
import { useTempDirs } from "../support/temp-dir.js";

const newDir = useTempDirs("carto-live-", "file");
let tmp: string;
let app: Cartographer;

beforeAll(async () => {
  tmp = newDir();
  const root = join(tmp, "kb");
  await seedKb(root);
  app = await createCartographer({
    kbs: [testKbSettings(root, { name: "k" })],
    logger: memoryLogger(),
  });
}, 60_000);
afterAll(async () => {
  await app?.close();
});

async function liveClient(): Promise<{
  client: Client;
  events: { method: string; params: unknown }[];
}> {
  const server = createMcpServer(must(app.surfaces.get("k")), {
    name: "cartographer",
    version: "test",
    profile: "full",
    principal: LOCAL_ADMIN,
    transport: "stdio",
  });
  const [ct, st] = InMemoryTransport.createLinkedPair();
  await server.connect(st);
  const client = new Client({ name: "t", version: "1" });
  const events: { method: string; params: unknown }[] = [];
  for (const schema of [
    PromptListChangedNotificationSchema,
    ResourceListChangedNotificationSchema,
    ResourceUpdatedNotificationSchema,
    LoggingMessageNotificationSchema,
  ])
    client.setNotificationHandler(schema, (n) => {
      events.push({ method: n.method, params: n.params });
    });
  await client.connect(ct);
  return { client, events };
}

const settle = () => new Promise((r) => setTimeout(r, 50));

describe("a live session (stdio)", () => {
  it("declares subscribe and listChanged", async () => {
    const { client } = await liveClient();
    expect(client.getServerCapabilities()?.resources).toEqual({
      subscribe: true,
      listChanged: true,
    });
    expect(client.getServerCapabilities()?.prompts).toEqual({ listChanged: true });
    await client.close();
  });

  it("skill_install announces prompts/list_changed", async () => {
    const { client, events } = await liveClient();
    const r = await client.callTool({
      name: "skill_install",
      arguments: { name: "cartographer-kb-loop" },
    });
    expect(r.isError ?? false, JSON.stringify(r)).toBe(false);
    await settle();
    expect(events.map((e) => e.method)).toContain("notifications/prompts/list_changed");
    await client.close();
  });

  it("after a write: list_changed, and updated for each subscribed URI of the KB until unsubscribed", async () => {
    const { client, events } = await liveClient();
    const uri = "cartographer://k/notes/a";
    await client.subscribeResource({ uri });
    const w = await client.callTool({
      name: "concept_write",
      arguments: { id: "notes/a", frontmatter: { type: "note" }, body: "one\n" },
    });
    expect(w.isError ?? false).toBe(false);
    await settle();
    expect(events.map((e) => e.method)).toEqual([
      "notifications/resources/list_changed",
      "notifications/resources/updated",
    ]);
    expect(events[1]?.params).toEqual({ uri });
    events.length = 0;
    // A read changes nothing; a failed write changes nothing.
    await client.callTool({ name: "concept_read", arguments: { id: "notes/a" } });
    await client.callTool({ name: "concept_patch", arguments: { id: "missing/x", edits: [] } });
    await settle();
    expect(events).toEqual([]);
    await client.unsubscribeResource({ uri });
    await client.callTool({
      name: "concept_write",
      arguments: { id: "notes/b", frontmatter: { type: "note" }, body: "two\n" },
    });
    await settle();
    expect(events.map((e) => e.method)).toEqual(["notifications/resources/list_changed"]);
    await client.close();
  });

  it("a warning about the KB reaches the client as notifications/message, path-free, level filtered", async () => {
    const { client, events } = await liveClient();
    const root = must(app.surfaces.get("k")).settings.root;
    // An unclosed frontmatter block: reading it makes the store warn (store-read.ts).
    await writeFile(join(root, "data/broken.md"), "---\ntype: note\nno end\n");
    await client.setLoggingLevel("warning");
    await client.callTool({ name: "concept_read", arguments: { id: "broken" } });
    await settle();
    const logs = events.filter((e) => e.method === "notifications/message");
    expect(logs.length).toBeGreaterThan(0);
    const first = logs[0]?.params as { level: string; logger: string; data: string };
    expect(first.level).toBe("warning");
    expect(first.logger).toBe("cartographer:k");
    expect(first.data).toContain("data/broken.md");
    expect(first.data).not.toContain(tmp);
    events.length = 0;
    await client.setLoggingLevel("error");
    await client.callTool({ name: "concept_read", arguments: { id: "broken" } });
    await settle();
    expect(events.filter((e) => e.method === "notifications/message")).toEqual([]);
    await client.close();
  });

  it("a call with a progress token gets increasing progress, ending at done = total", async () => {
    const { client } = await liveClient();
    const seen: Progress[] = [];
    const r = await client.request(
      { method: "tools/call", params: { name: "reindex", arguments: {} } },
      CallToolResultSchema,
      { onprogress: (p) => seen.push(p) },
    );
    expect(r.isError ?? false).toBe(false);
    expect(seen.length).toBeGreaterThanOrEqual(2);
    for (let i = 1; i < seen.length; i++)
      expect(must(seen[i]).progress).toBeGreaterThan(must(seen[i - 1]).progress);
    const last = must(seen.at(-1));
    expect(last.progress).toBe(last.total);
    await client.close();
  });

  it("concept_batch reports each planned operation; lint and validate their phases", async () => {
    const { client } = await liveClient();
    const progressOf = async (name: string, args: Record<string, unknown>) => {
      const seen: Progress[] = [];
      const r = await client.request(
        { method: "tools/call", params: { name, arguments: args } },
        CallToolResultSchema,
        { onprogress: (p) => seen.push(p) },
      );
      expect(r.isError ?? false, JSON.stringify(r)).toBe(false);
      return seen.map((p) => [p.progress, p.total]);
    };
    const ops = ["x", "y", "z"].map((n) => ({
      op: "write",
      id: `batch/${n}`,
      frontmatter: { type: "note" },
      body: `${n}\n`,
    }));
    expect(await progressOf("concept_batch", { operations: ops })).toEqual([
      [0, undefined],
      [1, 4],
      [2, 4],
      [3, 4],
      [4, 4],
    ]);
    expect(await progressOf("lint", {})).toEqual([
      [0, undefined],
      [1, 2],
      [2, 2],
    ]);
    expect(await progressOf("validate", {})).toEqual([
      [0, undefined],
      [1, 2],
      [2, 2],
    ]);
    await client.close();
  });
});
