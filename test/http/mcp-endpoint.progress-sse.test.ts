/**
 * Progress over real HTTP (docs/decisions.md "Progress over HTTP is an SSE response"): a tools/call
 * with `_meta.progressToken` is answered as an SSE stream written as it goes — progress
 * notifications arrive while the tool still runs, then the result — on per-KB and routed endpoints,
 * through the SDK client too; every other request stays one JSON response. Resources and prompts
 * work over stateless HTTP as well.
 */
import { request } from "node:http";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema, type Progress } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { KbSettings } from "../../src/kb/core/types.js";
import { defineTool } from "../../src/tools/define.js";
import { toolsFor } from "../../src/tools/registry.js";
import { type TempMounts, tempMounts } from "../support/mcp-kit.js";
import { MCP_HEADERS, raw, serveMounts } from "./helpers.js";

/** Released by the test once it has seen the first progress event on the wire. */
let release: () => void = () => {};
const slowProbe = defineTool({
  name: "slow_probe",
  description: "test: reports progress, then waits for the test",
  readOnly: true,
  advanced: false,
  resource: "whole",
  auditFields: [],
  handler: async (_args, ctx) => {
    ctx.progress?.(1, 2);
    await new Promise<void>((resolve) => {
      release = resolve;
    });
    return { ok: true };
  },
});

let kbs: TempMounts;
let server: Awaited<ReturnType<typeof serveMounts>>;
beforeAll(async () => {
  kbs = await tempMounts(["main", "other"]);
  server = await serveMounts(kbs.mounts, {
    toolsFor: (s: KbSettings) => [...toolsFor(s), slowProbe],
  });
}, 60_000);
afterAll(async () => {
  release();
  await server?.close();
  await kbs?.cleanup();
});

const call = (id: number, name: string, token?: string) =>
  JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name, arguments: {}, ...(token ? { _meta: { progressToken: token } } : {}) },
  });

describe("progress over HTTP (SSE for that call)", () => {
  it("streams the progress event before the tool finishes, then the result", async () => {
    const chunks: string[] = [];
    const done = new Promise<{ type: string | undefined }>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error("no progress event while the tool ran")),
        10_000,
      );
      const req = request(
        {
          host: "127.0.0.1",
          port: server.port,
          method: "POST",
          path: "/mcp/main",
          headers: MCP_HEADERS,
        },
        (res) => {
          res.setEncoding("utf8");
          res.on("data", (c: string) => {
            chunks.push(c);
            // The tool is still waiting: only a live stream can show this now.
            if (c.includes("notifications/progress")) release();
          });
          res.on("end", () => {
            clearTimeout(timer);
            resolve({ type: res.headers["content-type"] });
          });
        },
      );
      req.on("error", reject);
      req.end(call(7, "slow_probe", "tok-1"));
    });
    const { type } = await done;
    expect(type).toContain("text/event-stream");
    const text = chunks.join("");
    const progressAt = text.indexOf('"method":"notifications/progress"');
    const resultAt = text.indexOf('"id":7');
    expect(progressAt).toBeGreaterThanOrEqual(0);
    expect(resultAt).toBeGreaterThan(progressAt);
    expect(text).toContain('"progressToken":"tok-1"');
  });

  it.each(["/mcp/main", "/mcp/routed"])(
    "an unknown tool with a token on %s answers `tool not found` with no progress event",
    async (path) => {
      const r = await raw(server.port, {
        path,
        headers: MCP_HEADERS,
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 9,
          method: "tools/call",
          params: {
            name: "no_such_tool",
            arguments: path === "/mcp/routed" ? { kb: "main" } : {},
            _meta: { progressToken: "p-unknown" },
          },
        }),
      });
      expect(r.body).toContain("no_such_tool");
      expect(r.body).not.toContain("notifications/progress");
    },
  );

  it("without a token the same call is one JSON response", async () => {
    const r = await raw(server.port, {
      path: "/mcp/main",
      headers: MCP_HEADERS,
      body: call(8, "kb_status"),
    });
    expect(r.headers["content-type"]).toContain("application/json");
    expect((r.json() as { id: number }).id).toBe(8);
  });

  it.each(["/mcp/main", "/mcp/routed"])(
    "the SDK client gets increasing progress on %s",
    async (path) => {
      const client = new Client({ name: "t", version: "1" });
      await client.connect(new StreamableHTTPClientTransport(new URL(server.url + path)));
      const seen: Progress[] = [];
      const args = path === "/mcp/routed" ? { kb: "main" } : {};
      const r = await client.request(
        { method: "tools/call", params: { name: "reindex", arguments: args } },
        CallToolResultSchema,
        { onprogress: (p) => seen.push(p) },
      );
      expect(r.isError ?? false).toBe(false);
      expect(seen.length).toBeGreaterThanOrEqual(2);
      expect(seen.at(-1)?.progress).toBe(seen.at(-1)?.total);
      // Resources and prompts over stateless HTTP, no subscription offered.
      expect(client.getServerCapabilities()?.resources?.subscribe).toBeUndefined();
      const resources = await client.listResources();
      expect(resources.resources.some((x) => x.uri === "cartographer://main/~index")).toBe(true);
      const prompts = await client.listPrompts();
      expect(prompts.prompts.some((p) => p.name === "cartographer-kb-loop")).toBe(true);
      await client.close();
    },
  );
});
