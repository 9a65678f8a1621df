/**
 * Progress is sent only for a tool the surface has: `tools/call` of an unknown tool with a
 * progress token answers `tool not found` without a 0 and a 1/1 first (a client would show a
 * call that ran), per KB and routed; a known tool still reports progress. Real KBs, the SDK
 * Client over an in-memory transport.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { Progress } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/logger.js";
import { LOCAL_ADMIN } from "../../src/mcp/context.js";
import { RoutedSurface } from "../../src/mcp/routed-surface.js";
import { createMcpServer } from "../../src/mcp/server.js";
import type { ToolSurface } from "../../src/mcp/surface.js";
import { surfaceForMount } from "../../src/mcp/surface-for-mount.js";
import { type TempMounts, tempMounts, textOf } from "../support/mcp-kit.js";

let kbs: TempMounts;
let perKb: ToolSurface;
let routed: ToolSurface;

beforeAll(async () => {
  kbs = await tempMounts(["main", "other"]);
  const surfaces = kbs.mounts.map((m) => surfaceForMount(m, { audit: null, logger: silentLogger }));
  perKb = surfaces[0] as ToolSurface;
  routed = new RoutedSurface(surfaces);
}, 60_000);
afterAll(async () => kbs?.cleanup());

async function callWithProgress(
  surface: ToolSurface,
  name: string,
  args: Record<string, unknown>,
): Promise<{ text: string; progress: Progress[] }> {
  const server = createMcpServer(surface, {
    name: "cartographer",
    version: "test",
    profile: "agent",
    principal: LOCAL_ADMIN,
    transport: "in-memory",
  });
  const [ct, st] = InMemoryTransport.createLinkedPair();
  await server.connect(st);
  const client = new Client({ name: "t", version: "1" });
  await client.connect(ct);
  const progress: Progress[] = [];
  try {
    const result = await client.callTool({ name, arguments: args }, undefined, {
      onprogress: (p) => progress.push(p),
    });
    // Notifications sent before the answer have been delivered by now (same ordered channel).
    return { text: textOf(result), progress };
  } finally {
    await client.close();
  }
}

describe("tools/call with a progress token", () => {
  it("answers an unknown tool with no progress before it (per KB)", async () => {
    const { text, progress } = await callWithProgress(perKb, "no_such_tool", {});
    expect(text).toBe("tool not found: no_such_tool");
    expect(progress).toEqual([]);
  });

  it("answers an unknown tool with no progress before it (routed)", async () => {
    const { text, progress } = await callWithProgress(routed, "no_such_tool", { kb: "main" });
    expect(text).toContain("no_such_tool");
    expect(progress).toEqual([]);
  });

  it("still reports progress for a tool that exists, advanced ones included", async () => {
    const listed = await callWithProgress(perKb, "kb_status", {});
    expect(listed.progress.at(-1)).toEqual({ progress: 1, total: 1 });
    const advanced = await callWithProgress(routed, "index_rebuild", { kb: "other" });
    expect(advanced.progress.length).toBeGreaterThan(0);
  });
});
