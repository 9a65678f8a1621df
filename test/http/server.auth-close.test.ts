import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TokenStore, tokenDigest } from "../../src/auth/tokens.js";
import type { HttpServerHandle } from "../../src/http/server.js";
import { memoryLogger } from "../../src/logger.js";
import { toolsFor } from "../../src/tools/registry.js";
import type { ToolSpec } from "../../src/tools/spec.js";
import { principal, type TempMounts, tempMounts, textOf } from "../support/mcp-kit.js";
import { postInit, raw, serveMounts } from "./helpers.js";

const ADMIN_TOKEN = "canary-admin-token-4f1c";
const B_TOKEN = "canary-b-token-77aa";

let kbs: TempMounts;
let server: HttpServerHandle;
const logger = memoryLogger();
beforeAll(async () => {
  kbs = await tempMounts(["a", "b"]);
  const tokens = new TokenStore([
    {
      digest: tokenDigest(ADMIN_TOKEN),
      principal: { id: "admin", policy: { admin: true, rules: [] } },
    },
    { digest: tokenDigest(B_TOKEN), principal: principal("reader-b", [{ kb: "b", access: "r" }]) },
  ]);
  server = await serveMounts(kbs.mounts, {
    logger,
    version: "1",
    auth: { tokens, authorizationServers: ["https://auth.example"] },
  });
});
afterAll(async () => {
  await server.close();
  await kbs.cleanup();
});

async function client(path: string, token: string) {
  const c = new Client({ name: "t", version: "1" });
  await c.connect(
    new StreamableHTTPClientTransport(new URL(`${server.url}${path}`), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  return c;
}

describe("HTTP auth", () => {
  it("missing or unknown bearer → 401 with WWW-Authenticate resource_metadata and a JSON-RPC body", async () => {
    for (const headers of [
      {},
      { Authorization: "Bearer nope" },
      { Authorization: "Basic abc" },
    ] as Record<string, string>[]) {
      const r = await postInit(server.port, "/mcp/routed", headers);
      expect(r.status).toBe(401);
      expect(r.headers["www-authenticate"]).toBe(
        `Bearer resource_metadata="http://127.0.0.1:${server.port}/.well-known/oauth-protected-resource"`,
      );
      expect(r.json()).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32001 } });
    }
  });

  it("/health and /ready stay public", async () => {
    expect((await raw(server.port, { method: "GET", path: "/health" })).status).toBe(200);
    expect((await raw(server.port, { method: "GET", path: "/ready" })).status).toBe(200);
  });

  it("serves protected-resource metadata, bare and path-suffixed", async () => {
    const bare = await raw(server.port, {
      method: "GET",
      path: "/.well-known/oauth-protected-resource",
    });
    expect(bare.json()).toEqual({
      resource: `http://127.0.0.1:${server.port}/mcp`,
      bearer_methods_supported: ["header"],
      scopes_supported: ["kb:a:r", "kb:a:rw", "kb:b:r", "kb:b:rw"],
      authorization_servers: ["https://auth.example"],
    });
    const suffixed = await raw(server.port, {
      method: "GET",
      path: "/.well-known/oauth-protected-resource/mcp/routed",
    });
    expect((suffixed.json() as { resource: string }).resource).toBe(
      `http://127.0.0.1:${server.port}/mcp/routed`,
    );
  });

  it("metadata gate: a token for b cannot initialize /mcp/a but can use b, and the routed binding lists the union", async () => {
    await expect(client("/mcp/a", B_TOKEN)).rejects.toThrow(/forbidden/);
    const b = await client("/mcp/b", B_TOKEN);
    expect((await b.callTool({ name: "kb_status", arguments: {} })).isError).toBeFalsy();
    const routed = await client("/mcp/routed", B_TOKEN);
    expect((await routed.listTools()).tools.length).toBeGreaterThan(0);
    expect(textOf(await routed.callTool({ name: "kb_status", arguments: { kb: "a" } }))).toBe(
      "forbidden",
    );
    const admin = await client("/mcp/a", ADMIN_TOKEN);
    expect((await admin.callTool({ name: "kb_status", arguments: {} })).isError).toBeFalsy();
  });

  it("no token value ever reaches the log", () => {
    const all = logger.lines.join("\n");
    expect(all).not.toContain(ADMIN_TOKEN);
    expect(all).not.toContain(B_TOKEN);
  });
});

describe("graceful close", () => {
  it("stops accepting, finishes the in-flight call, then closes the indexes", async () => {
    const mounts = await tempMounts(["slow"]);
    let release: () => void = () => {};
    let started: () => void = () => {};
    const running = new Promise<void>((r) => (started = r));
    const slow: ToolSpec = {
      name: "slow_read",
      description: "Waits.",
      inputSchema: { type: "object", properties: {} },
      readOnly: true,
      advanced: false,
      resource: "whole",
      auditFields: [],
      handler: async () => {
        started();
        await new Promise<void>((r) => (release = r));
        return { done: true };
      },
    };
    const s = await serveMounts(mounts.mounts, {
      logger: memoryLogger(),
      version: "1",
      toolsFor: (settings) => [...toolsFor(settings), slow],
    });
    try {
      const c = new Client({ name: "t", version: "1" });
      await c.connect(new StreamableHTTPClientTransport(new URL(`${s.url}/mcp`)));
      const call = c.callTool({ name: "slow_read", arguments: {} });
      await running;
      let closed = false;
      const closing = s.close().then(() => {
        closed = true;
      });
      await new Promise((r) => setTimeout(r, 50));
      expect(closed).toBe(false);
      await expect(raw(s.port, { method: "GET", path: "/health" })).rejects.toThrow();
      release();
      expect(textOf(await call)).toBe('{"done":true}');
      await closing;
      expect(closed).toBe(true);
      expect(() => mounts.mounts[0]?.index.count()).toThrow();
    } finally {
      release();
      await s.close();
      await mounts.cleanup();
    }
  });
});

describe("readiness with a required-mode audit", () => {
  it("/ready turns 503 while appends fail and 200 once they succeed again", async () => {
    const { MemoryAudit } = await import("../support/mcp-kit.js");
    const mounts = await tempMounts(["r"]);
    const audit = new MemoryAudit("required");
    const s = await serveMounts(mounts.mounts, {
      logger: memoryLogger(),
      version: "1",
      audit,
    });
    try {
      expect((await raw(s.port, { method: "GET", path: "/ready" })).status).toBe(200);
      audit.failing = true;
      expect((await raw(s.port, { method: "GET", path: "/ready" })).status).toBe(503);
      audit.failing = false;
      expect((await raw(s.port, { method: "GET", path: "/ready" })).status).toBe(200);
    } finally {
      await s.close();
      await mounts.cleanup();
    }
  });
});
