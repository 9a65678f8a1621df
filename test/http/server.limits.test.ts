/**
 * Connection limits over real sockets (docs/decisions.md "Connection cap with headroom for
 * probes"): a connection cap that keeps /health reachable and warns once per burst, a headers
 * timeout and a whole-request timeout that free a slow client's connection, and duplicate headers
 * sent on the wire (docs/decisions.md "Strict `Host`").
 */
import { connect, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { memoryLogger } from "../../src/logger.js";
import { tempMounts } from "../support/mcp-kit.js";
import { INITIALIZE, MCP_HEADERS, raw, serveMounts } from "./helpers.js";

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function server(opts: Parameters<typeof serveMounts>[1]) {
  const kbs = await tempMounts(["k"]);
  const s = await serveMounts(kbs.mounts, opts);
  cleanups.push(
    () => kbs.cleanup(),
    () => s.close(),
  );
  return s;
}

/** An open TCP connection; resolves once connected. */
function open(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => resolve(socket));
    socket.on("error", reject);
    cleanups.push(async () => socket.destroy());
  });
}

/** Writes `text` on a fresh connection and collects what comes back until the server closes. */
function exchange(
  port: number,
  text: string,
  timeoutMs = 5000,
): Promise<{ data: string; ms: number }> {
  return new Promise((resolve) => {
    const started = Date.now();
    let data = "";
    const socket = connect(port, "127.0.0.1", () => socket.write(text));
    socket.on("data", (c) => {
      data += c.toString("utf8");
    });
    const done = () => resolve({ data, ms: Date.now() - started });
    socket.on("close", done);
    socket.on("error", () => {});
    setTimeout(() => {
      socket.destroy();
    }, timeoutMs);
  });
}

const settle = () => new Promise((r) => setTimeout(r, 100));

describe("connection cap", () => {
  it("over the cap /health and /ready still answer, MCP is 503, and one warning is logged", async () => {
    const logger = memoryLogger();
    const s = await server({ maxConnections: 2, logger });
    await open(s.port);
    await open(s.port);
    await settle();
    // raw() uses a fresh connection each time: the 3rd, 4th, ... — all over the cap.
    const health = await raw(s.port, { method: "GET", path: "/health" });
    expect(health.status).toBe(200);
    expect(health.headers.connection).toBe("close"); // the probe frees its headroom slot
    expect((await raw(s.port, { method: "GET", path: "/ready" })).status).toBe(200);
    const mcp = await raw(s.port, { path: "/mcp", headers: MCP_HEADERS, body: INITIALIZE });
    expect(mcp.status).toBe(503);
    expect(mcp.headers.connection).toBe("close");
    expect((mcp.json() as { error: { message: string } }).error.message).toMatch(/server busy/);
    const warnings = logger.lines.filter((l) => l.includes("connection cap reached"));
    expect(warnings).toHaveLength(1);
  });

  it("past the headroom a connection is closed at once; below the cap MCP is served again", async () => {
    const logger = memoryLogger();
    const s = await server({ maxConnections: 1, logger });
    const held = [await open(s.port)];
    for (let i = 0; i < 8; i++) held.push(await open(s.port)); // headroom: max(8, 1/8)
    await settle();
    const refused = await exchange(s.port, "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 2000);
    expect(refused.data).toBe("");
    for (const socket of held) socket.destroy();
    await settle();
    const mcp = await raw(s.port, { path: "/mcp", headers: MCP_HEADERS, body: INITIALIZE });
    expect(mcp.status).toBe(200);
    expect(logger.lines.filter((l) => l.includes("connection cap reached"))).toHaveLength(1);
  });
});

describe("timeouts", () => {
  it("a client that never finishes its headers is cut after the headers timeout", async () => {
    const s = await server({ headersTimeoutMs: 300, requestTimeoutMs: 300 });
    const r = await exchange(s.port, "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n", 5000);
    expect(r.ms).toBeLessThan(3000);
    expect(r.data).toMatch(/^HTTP\/1\.1 408/);
  });

  it("a client that stalls mid-body is cut after the request timeout", async () => {
    const s = await server({ headersTimeoutMs: 300, requestTimeoutMs: 600 });
    const head = `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 100\r\n\r\n{`;
    const r = await exchange(s.port, head, 5000);
    expect(r.ms).toBeLessThan(3000);
    expect(r.data).toMatch(/^HTTP\/1\.1 408/);
  });
});

describe("headers on the wire", () => {
  it("two Host headers or two Authorization headers are 400", async () => {
    const s = await server({});
    const twoHosts = await exchange(
      s.port,
      "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n",
    );
    expect(twoHosts.data).toMatch(/^HTTP\/1\.1 400/);
    const twoAuth = await exchange(
      s.port,
      "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer a\r\nAuthorization: Bearer b\r\nConnection: close\r\n\r\n",
    );
    expect(twoAuth.data).toMatch(/^HTTP\/1\.1 400/);
    const badHost = await exchange(
      s.port,
      "GET /health HTTP/1.1\r\nHost: localhost:1/evil\r\nConnection: close\r\n\r\n",
    );
    expect(badHost.data).toMatch(/^HTTP\/1\.1 400/);
  });
});
