import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHttpCore, type HttpCore } from "../../src/http/core.js";
import { memoryLogger } from "../../src/logger.js";
import { type TempMounts, tempMounts } from "../support/mcp-kit.js";
import { INITIALIZE, MCP_HEADERS, postInit, raw, serveMounts, viaCore } from "./helpers.js";

let kbs: TempMounts;
let server: Awaited<ReturnType<typeof serveMounts>>;
const logger = memoryLogger();
beforeAll(async () => {
  kbs = await tempMounts(["a", "b", "c", "routed", "a"], { artifacts: ["b"] });
  server = await serveMounts(kbs.mounts, {
    logger,
    version: "9.9.9",
    corsOrigins: ["https://app.example"],
  });
});
afterAll(async () => {
  await server.close();
  await kbs.cleanup();
});

// Status tests go through the HTTP core without a socket (core.ts); a few stay on sockets.
let core: HttpCore;
beforeAll(() => {
  core = createHttpCore({
    app: server.app,
    version: "9.9.9",
    corsOrigins: ["https://app.example"],
  });
});
const hit = (opts: Parameters<typeof viaCore>[1]) => viaCore(core, opts);
const init = (path: string, headers: Record<string, string> = {}) =>
  hit({ path, headers: { ...MCP_HEADERS, ...headers }, body: INITIALIZE });

async function client(path: string) {
  const c = new Client({ name: "t", version: "1" });
  await c.connect(new StreamableHTTPClientTransport(new URL(`${server.url}${path}`)));
  return c;
}

describe("HTTP routes", () => {
  it("skips a KB named routed and a duplicate name, warning once each", () => {
    expect(logger.lines.filter((l) => l.includes('"routed"'))).toHaveLength(1);
    expect(logger.lines.filter((l) => l.includes("used twice"))).toHaveLength(1);
  });

  it("GET /health reports version, kbs and the routed topology; /ready is 200", async () => {
    const h = await raw(server.port, { method: "GET", path: "/health" });
    expect(h.status).toBe(200);
    expect(h.json()).toEqual({
      status: "ok",
      version: "9.9.9",
      ready: true,
      kbs: ["a", "b", "c"].map((name) => ({
        name,
        status: "ok",
        index: { state: "ready", done: expect.any(Number), total: expect.any(Number) },
      })),
      mount_mode: "routed",
      routed_path: "/mcp/routed",
    });
    expect((await raw(server.port, { method: "GET", path: "/ready" })).status).toBe(200);
  });

  it("serverInfo: cartographer:<kb> on per-KB endpoints of a multi-KB server, cartographer on routed", async () => {
    expect((await client("/mcp/a")).getServerVersion()?.name).toBe("cartographer:a");
    expect((await client("/mcp?kb=b")).getServerVersion()?.name).toBe("cartographer:b");
    const routed = await client("/mcp/routed?kbs=a,b");
    expect(routed.getServerVersion()?.name).toBe("cartographer");
    const { tools } = await routed.listTools();
    expect(tools[0]?.inputSchema.properties?.kb).toEqual({ type: "string", enum: ["a", "b"] });
    const r = await routed.callTool({ name: "kb_status", arguments: { kb: "b" } });
    expect(r.isError).toBeFalsy();
  });

  it("KB selection errors: 400 naming the mounted KBs, 404 for unknown names", async () => {
    const noKb = await init("/mcp");
    expect(noKb.status).toBe(400);
    expect(noKb.json()).toMatchObject({
      jsonrpc: "2.0",
      id: null,
      error: { message: expect.stringContaining("a, b, c") },
    });
    expect((await init("/mcp?kb=zz")).status).toBe(404);
    expect((await init("/mcp/zz")).status).toBe(404);
    expect((await init("/mcp/a?kb=b")).status).toBe(400);
    expect((await init("/mcp/a?kb=a")).status).toBe(200);
    expect((await init("/mcp/routed?kb=a")).status).toBe(400);
    const unknown = await init("/mcp/routed?kbs=a,zz");
    expect(unknown.status).toBe(400);
    expect((unknown.json() as { error: { message: string } }).error.message).toMatch(
      /"zz".*a, b, c/,
    );
  });

  it("a repeated ?kb= or ?kbs= is 400 naming the parameter, never first-value-wins", async () => {
    for (const path of [
      "/mcp?kb=a&kb=b",
      "/mcp?kb=a&kb=a",
      "/mcp/a?kb=a&kb=b",
      "/mcp/routed?kbs=a&kbs=b",
    ]) {
      const r = await init(path);
      expect(r.status, path).toBe(400);
      const param = path.includes("kbs=") ? "kbs" : "kb";
      expect(r.json(), path).toMatchObject({
        jsonrpc: "2.0",
        id: null,
        error: { code: -32600, message: expect.stringContaining(`?${param}= given 2 times`) },
      });
    }
  });

  it("?kbs= off the routed mount is 400 pointing at /mcp/routed, never silently ignored", async () => {
    for (const path of ["/mcp?kbs=a", "/mcp/a?kbs=a,b"]) {
      const r = await init(path);
      expect(r.status, path).toBe(400);
      expect(r.json(), path).toMatchObject({
        error: { code: -32600, message: expect.stringContaining("/mcp/routed?kbs=") },
      });
    }
  });

  it("405 for GET on MCP paths and other methods; 404 for unknown paths", async () => {
    const get = await hit({
      method: "GET",
      path: "/mcp/routed",
      headers: { Accept: "text/event-stream" },
    });
    expect(get.status).toBe(405);
    expect(get.json()).toMatchObject({ jsonrpc: "2.0", error: { code: -32000 } });
    expect((await hit({ method: "DELETE", path: "/mcp/a" })).status).toBe(405);
    expect((await hit({ method: "PUT", path: "/health" })).status).toBe(405);
    expect((await hit({ method: "GET", path: "/nope" })).status).toBe(404);
  });

  it("415 for a non-JSON Content-Type (parameters are fine); 413 over the body cap; 400 for bad JSON", async () => {
    const plain = await raw(server.port, {
      path: "/mcp/a",
      headers: { ...MCP_HEADERS, "Content-Type": "text/plain; a=application/json" },
      body: INITIALIZE,
    });
    expect(plain.status).toBe(415);
    const charset = await raw(server.port, {
      path: "/mcp/a",
      headers: { ...MCP_HEADERS, "Content-Type": "Application/JSON; charset=utf-8" },
      body: INITIALIZE,
    });
    expect(charset.status).toBe(200);
    const big = await raw(server.port, {
      path: "/mcp/a",
      headers: MCP_HEADERS,
      body: Buffer.alloc(2 * 1024 * 1024 + 10, 0x20),
    });
    expect(big.status).toBe(413);
    expect(big.json()).toMatchObject({ jsonrpc: "2.0", error: { code: -32000 } });
    const bad = await raw(server.port, { path: "/mcp/a", headers: MCP_HEADERS, body: "{nope" });
    expect(bad.status).toBe(400);
    expect(bad.json()).toMatchObject({ error: { code: -32700 } });
    const empty = await raw(server.port, { path: "/mcp/a", headers: MCP_HEADERS, body: "[]" });
    expect(empty.status).toBe(400);
    expect(empty.json()).toMatchObject({ id: null, error: { code: -32600 } });
  });

  it("well-formed JSON that is not a JSON-RPC message is 400 Invalid Request (-32600), not a parse error", async () => {
    const bodies = [
      '{"foo":1}',
      "[1,2]",
      '"x"',
      "42",
      "null",
      '{"jsonrpc":"2.0","id":1,"method":7}',
      `[${INITIALIZE},{"foo":1}]`,
    ];
    for (const body of bodies) {
      const r = await hit({ path: "/mcp/a", headers: MCP_HEADERS, body });
      expect(r.status, body).toBe(400);
      expect(r.json(), body).toMatchObject({
        jsonrpc: "2.0",
        id: null,
        error: { code: -32600, message: expect.stringMatching(/^Invalid Request: /) },
      });
    }
    const ok = await hit({
      path: "/mcp/a",
      headers: MCP_HEADERS,
      body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
    });
    expect(ok.status).toBe(202);
  });

  it("plain JSON clients (Accept: application/json, */*, or none) get JSON; only an Accept allowing neither is 406", async () => {
    for (const accept of ["application/json", "*/*", "application/*", undefined]) {
      const headers: Record<string, string> = { "Content-Type": "application/json" };
      if (accept !== undefined) headers.Accept = accept;
      const r = await hit({ path: "/mcp/a", headers, body: INITIALIZE });
      expect(r.status, accept).toBe(200);
      expect(r.headers["content-type"], accept).toMatch(/^application\/json/);
      expect(r.json(), accept).toMatchObject({ jsonrpc: "2.0", result: { serverInfo: {} } });
    }
    for (const accept of ["text/html", "application/json;q=0", "text/plain, image/png"]) {
      const r = await hit({
        path: "/mcp/a",
        headers: {
          "Content-Type": "application/json",
          Origin: "https://app.example",
          Accept: accept,
        },
        body: INITIALIZE,
      });
      expect(r.status, accept).toBe(406);
      expect(r.headers["content-type"], accept).toMatch(/^application\/json/);
      expect(r.headers["access-control-allow-origin"], accept).toBe("https://app.example");
      expect(r.json(), accept).toEqual({
        jsonrpc: "2.0",
        id: null,
        error: {
          code: -32000,
          message: expect.stringMatching(/application\/json or text\/event-stream/),
        },
      });
    }
  });

  it("a client accepting only text/event-stream is answered in SSE", async () => {
    const r = await hit({
      path: "/mcp/a",
      headers: { "Content-Type": "application/json", Accept: "text/event-stream" },
      body: INITIALIZE,
    });
    expect(r.status).toBe(200);
    expect(r.headers["content-type"]).toMatch(/^text\/event-stream/);
  });

  it("DNS rebinding: a non-loopback Host or Origin is 403; loopback names pass", async () => {
    expect((await init("/mcp/a", { Host: "evil.example" })).status).toBe(403);
    expect((await init("/mcp/a", { Origin: "http://evil.example" })).status).toBe(403);
    expect(
      (
        await hit({
          method: "GET",
          path: "/health",
          headers: { Host: "attacker.test:80" },
        })
      ).status,
    ).toBe(403);
    expect(
      (
        await init("/mcp/a", {
          Host: `localhost:${server.port}`,
          Origin: "http://localhost:3000",
        })
      ).status,
    ).toBe(200);
  });

  it("CORS only for configured origins, preflight included", async () => {
    const pre = await hit({
      method: "OPTIONS",
      path: "/mcp/routed",
      headers: { Origin: "https://app.example", "Access-Control-Request-Method": "POST" },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers["access-control-allow-origin"]).toBe("https://app.example");
    expect(pre.headers["access-control-allow-headers"]).toMatch(/Authorization/);
    expect(pre.headers["access-control-allow-methods"]).toBe("POST, OPTIONS");
    const healthPre = await hit({
      method: "OPTIONS",
      path: "/health",
      headers: { Origin: "https://app.example", "Access-Control-Request-Method": "GET" },
    });
    expect(healthPre.status).toBe(204);
    expect(healthPre.headers["access-control-allow-methods"]).toBe("GET, HEAD, OPTIONS");
    const nowherePre = await hit({
      method: "OPTIONS",
      path: "/nope",
      headers: { Origin: "https://app.example", "Access-Control-Request-Method": "GET" },
    });
    expect(nowherePre.status).toBe(404);
    expect(nowherePre.headers["access-control-allow-methods"]).toBeUndefined();
    const post = await init("/mcp/a", { Origin: "https://app.example" });
    expect(post.status).toBe(200);
    expect(post.headers["access-control-allow-origin"]).toBe("https://app.example");
    expect(post.headers["access-control-expose-headers"]).toMatch(/WWW-Authenticate/);
    const local = await init("/mcp/a", { Origin: "http://localhost:5173" });
    expect(local.headers["access-control-allow-origin"]).toBeUndefined();
    const otherPre = await hit({
      method: "OPTIONS",
      path: "/mcp/a",
      headers: { Origin: "http://localhost:5173" },
    });
    expect(otherPre.status).toBe(405);
  });
});

describe("HTTP server without KBs", () => {
  it("/ready is 503 and /health advertises no routing", async () => {
    const empty = await serveMounts([], {
      logger: memoryLogger(),
      version: "1",
    });
    try {
      expect((await raw(empty.port, { method: "GET", path: "/ready" })).status).toBe(503);
      const h = (await raw(empty.port, { method: "GET", path: "/health" })).json() as Record<
        string,
        unknown
      >;
      expect(h).toEqual({ status: "ok", version: "1", ready: false, kbs: [] });
      expect((await postInit(empty.port, "/mcp/routed")).status).toBe(404);
    } finally {
      await empty.close();
    }
  });

  it("refuses a non-loopback bind with auth off unless explicitly allowed", async () => {
    await expect(
      serveMounts([], {
        host: "0.0.0.0",
        port: 0,
        logger: memoryLogger(),
        version: "1",
      }),
    ).rejects.toThrow(/refusing to listen on 0\.0\.0\.0 with auth off/);
  });
});
