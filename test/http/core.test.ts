/**
 * The HTTP core without a socket: request values in, reply values out. Covers the route table
 * and the hardening checks: batch cap, strict Host, single Host/Authorization and -32602 for
 * malformed params (docs/decisions.md "Protocol").
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TokenStore, tokenDigest } from "../../src/auth/tokens.js";
import { createHttpCore, type HttpCore } from "../../src/http/core.js";
import { type HttpReply, requestOf } from "../../src/http/exchange.js";
import { silentLogger } from "../../src/logger.js";
import { type Cartographer, createCartographer } from "../../src/mcp/app.js";
import { type TempMounts, tempMounts } from "../support/mcp-kit.js";
import { INITIALIZE, MCP_HEADERS } from "./helpers.js";

const TOKEN = "core-test-token-0123456789";
let kbs: TempMounts;
let app: Cartographer;
let core: HttpCore;
let authCore: HttpCore;
beforeAll(async () => {
  kbs = await tempMounts(["a", "b"]);
  app = await createCartographer({ mounts: kbs.mounts, logger: silentLogger });
  core = createHttpCore({ app, version: "1", corsOrigins: ["https://app.example"] });
  const tokens = new TokenStore([
    { digest: tokenDigest(TOKEN), principal: { id: "admin", policy: { admin: true, rules: [] } } },
  ]);
  // An authorization server, so the RFC 9728 metadata is served (a static-only server 404s it).
  authCore = createHttpCore({
    app,
    version: "1",
    auth: { tokens, authorizationServers: ["https://auth.example"] },
  });
});
afterAll(async () => {
  await app.close();
  await kbs.cleanup();
});

const HOST = { Host: "127.0.0.1:39273" };
const H = { ...MCP_HEADERS, ...HOST, "mcp-protocol-version": "2025-06-18" };
const json = (r: HttpReply | null) => JSON.parse(r?.body ?? "null");
const rpc = (body: unknown) => JSON.stringify(body);

describe("HTTP core routes", () => {
  it("/health and /ready answer from the app; unknown paths 404, other methods 405", async () => {
    const health = await core.handle(requestOf("GET", "/health", HOST));
    expect(health?.status).toBe(200);
    expect(json(health)).toMatchObject({ status: "ok", kbs: [{ name: "a" }, { name: "b" }] });
    expect((await core.handle(requestOf("GET", "/ready", HOST)))?.status).toBe(200);
    expect((await core.handle(requestOf("GET", "/nope", HOST)))?.status).toBe(404);
    const put = await core.handle(requestOf("PUT", "/health", HOST));
    expect([put?.status, put?.headers.Allow]).toEqual([405, "GET"]);
    const get = await core.handle(requestOf("GET", "/mcp/a", HOST));
    expect([get?.status, get?.headers.Allow]).toEqual([405, "POST"]);
  });

  it("a CORS preflight lists the route's methods for a configured origin only", async () => {
    const origin = { ...HOST, Origin: "https://app.example" };
    const pre = await core.handle(requestOf("OPTIONS", "/mcp/a", origin));
    expect(pre?.status).toBe(204);
    expect(pre?.headers["Access-Control-Allow-Methods"]).toBe("POST, OPTIONS");
    expect((await core.handle(requestOf("OPTIONS", "/mcp/a", HOST)))?.status).toBe(405);
  });

  it("serves MCP: initialize names the per-KB server", async () => {
    const init = await core.handle(
      requestOf("POST", "/mcp/a", { ...MCP_HEADERS, ...HOST }, INITIALIZE),
    );
    expect(init?.status).toBe(200);
    expect(json(init).result.serverInfo.name).toBe("cartographer:a");
  });
});

describe("Host and Authorization headers", () => {
  it("a Host that is not host[:port] is 400 before any other check", async () => {
    for (const bad of [
      "localhost:1/evil",
      "localhost:",
      "local host",
      "a@localhost",
      "[::1",
      "x:99999",
      "127.0.0.1:1:2",
    ]) {
      const r = await core.handle(requestOf("GET", "/health", { Host: bad }));
      expect(r?.status, bad).toBe(400);
      expect(json(r).error.message).toBe("bad request: Host header is not host[:port]");
    }
    for (const good of ["localhost", "localhost:8080", "127.0.0.1", "[::1]:39273", "app.localhost"])
      expect((await core.handle(requestOf("GET", "/health", { Host: good })))?.status, good).toBe(
        200,
      );
  });

  it("a repeated Host or Authorization is 400", async () => {
    const twoHosts = await core.handle(
      requestOf("GET", "/health", [
        ["Host", "127.0.0.1"],
        ["Host", "evil.example"],
      ]),
    );
    expect(twoHosts?.status).toBe(400);
    expect(json(twoHosts).error.message).toMatch(/Host header given 2 times/);
    const twoAuth = await authCore.handle(
      requestOf(
        "POST",
        "/mcp/a",
        [
          ...Object.entries({ ...MCP_HEADERS, ...HOST }),
          ["Authorization", `Bearer ${TOKEN}`],
          ["Authorization", "Bearer other"],
        ],
        INITIALIZE,
      ),
    );
    expect(twoAuth?.status).toBe(400);
    expect(json(twoAuth).error.message).toMatch(/Authorization header given 2 times/);
  });

  it("RFC 9728 metadata echoes only a well-formed Host", async () => {
    const meta = await authCore.handle(
      requestOf("GET", "/.well-known/oauth-protected-resource/mcp/a", { Host: "localhost:39273" }),
    );
    expect(json(meta).resource).toBe("http://localhost:39273/mcp/a");
    const evil = await authCore.handle(
      requestOf("GET", "/.well-known/oauth-protected-resource", { Host: "localhost:1/evil" }),
    );
    expect(evil?.status).toBe(400);
    expect(evil?.body).not.toContain("evil");
    const unauth = await authCore.handle(
      requestOf("POST", "/mcp/a", { ...MCP_HEADERS, Host: "localhost:1/evil" }, INITIALIZE),
    );
    expect(unauth?.status).toBe(400);
    expect(JSON.stringify(unauth?.headers)).not.toContain("evil");
  });
});

describe("JSON-RPC batches and params", () => {
  it("a batch over 32 messages is 400 naming the limit; 32 is served", async () => {
    const batch = (n: number) =>
      rpc(Array.from({ length: n }, (_, i) => ({ jsonrpc: "2.0", id: i + 1, method: "ping" })));
    const over = await core.handle(requestOf("POST", "/mcp/a", H, batch(33)));
    expect(over?.status).toBe(400);
    expect(json(over).error).toEqual({
      code: -32600,
      message:
        "Invalid Request: batch of 33 messages is over the limit of 32 per request; send it as several requests",
    });
    const ok = await core.handle(requestOf("POST", "/mcp/a", H, batch(32)));
    expect(ok?.status).toBe(200);
    expect(json(ok)).toHaveLength(32);
  });

  it("tools/call without params is -32602 with a one-line message", async () => {
    for (const body of [
      { jsonrpc: "2.0", id: 3, method: "tools/call" },
      { jsonrpc: "2.0", id: 3, method: "tools/call", params: { arguments: {} } },
      { jsonrpc: "2.0", id: 3, method: "tools/list", params: { cursor: 1 } },
    ]) {
      const r = await core.handle(requestOf("POST", "/mcp/a", H, rpc(body)));
      const error = json(r).error;
      expect(error.code).toBe(-32602);
      expect(error.message).toMatch(/^Invalid params for tools\/(call|list): params/);
      expect(error.message).not.toContain("\n");
    }
  });
});
