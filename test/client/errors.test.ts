import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { connect } from "../../src/client/commands.js";
import { ProtocolError, ServerUnreachableError, ToolError } from "../../src/client/errors.js";
import { baseUrlOf, fetchHealth } from "../../src/client/health.js";
import { openMcpSession } from "../../src/client/mcp-session.js";
import {
  type FakeServer,
  PROVIDER_FILES,
  type Sandbox,
  sandbox,
  startFakeServer,
} from "./helpers.js";

let server: FakeServer;
let sb: Sandbox;

beforeEach(async () => {
  server = await startFakeServer({ shape: "routed", kbs: ["alpha", "beta"], token: "good-token" });
  sb = await sandbox({ CARTO_TOKEN: "good-token" });
});
afterEach(async () => {
  await server.close();
  await sb.cleanup();
});

async function closedPortUrl(): Promise<string> {
  const s = http.createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return `http://127.0.0.1:${port}`;
}

describe("errors are typed: unreachable, protocol, tool", () => {
  it("a refused connection is ServerUnreachableError, never a protocol error", async () => {
    const url = await closedPortUrl();
    await expect(fetchHealth(url)).rejects.toBeInstanceOf(ServerUnreachableError);
    await expect(openMcpSession(`${url}/mcp/routed`, {})).rejects.toBeInstanceOf(
      ServerUnreachableError,
    );
    expect(await connect(sb.io, { providers: ["claude"], serverUrl: url })).toBe(2);
    expect(sb.io.err()).toMatch(/server unreachable at .*\/health \(ECONNREFUSED\)/);
  });

  it("a timeout is ServerUnreachableError", async () => {
    const hang = http.createServer(() => {});
    await new Promise<void>((r) => hang.listen(0, "127.0.0.1", r));
    const { port } = hang.address() as AddressInfo;
    try {
      await expect(fetchHealth(`http://127.0.0.1:${port}`, fetch, 200)).rejects.toBeInstanceOf(
        ServerUnreachableError,
      );
    } finally {
      hang.closeAllConnections();
      await new Promise<void>((r) => hang.close(() => r()));
    }
  });

  it("an HTTP error or a non-JSON /health is a ProtocolError carrying the status", async () => {
    server.state.healthStatus = 502;
    const err = await fetchHealth(server.url).catch((e) => e);
    expect(err).toBeInstanceOf(ProtocolError);
    expect((err as ProtocolError).status).toBe(502);
    server.state.healthStatus = 200;
    const html = await fetchHealth(server.url).catch((e) => e);
    expect(html).toBeInstanceOf(ProtocolError);
    expect(html.message).toMatch(/\(HTTP 200\): answer is not JSON/);
    expect(await connect(sb.io, { providers: ["claude"], serverUrl: server.url })).toBe(2);
    expect(sb.io.err()).toMatch(/protocol error from .*\/health \(HTTP 200\)/);
  });

  it("an HTTP error on the MCP endpoint is a ProtocolError with the status", async () => {
    server.state.mcpStatus = 500;
    const err = await openMcpSession(`${server.url}/mcp/routed`, {}).catch((e) => e);
    expect(err).toBeInstanceOf(ProtocolError);
    expect((err as ProtocolError).status).toBe(500);
    const unauth = await openMcpSession(`${server.url}/mcp/routed`, {
      Authorization: "Bearer wrong",
    }).catch((e) => e);
    server.state.mcpStatus = undefined;
    expect(unauth).toBeInstanceOf(ProtocolError);
  });

  it("an isError tool result is a ToolError", async () => {
    server.state.mapListError = true;
    const session = await openMcpSession(`${server.url}/mcp/routed?kbs=alpha`, {
      Authorization: "Bearer good-token",
    });
    try {
      const err = await session.callTool("map_list", {}).catch((e) => e);
      expect(err).toBeInstanceOf(ToolError);
      expect(err.message).toBe("tool error from map_list: not_found: no maps");
    } finally {
      await session.close();
    }
  });

  it("connect still writes entries when the KB details fail, and warns with the failure's kind; artifacts are not provisioned (exit 2)", async () => {
    server.state.mapListError = true;
    expect(
      await connect(sb.io, {
        providers: ["claude"],
        kbs: ["alpha"],
        serverUrl: server.url,
        tokenEnv: "CARTO_TOKEN",
      }),
    ).toBe(0);
    expect(sb.io.err()).toMatch(/maps of KB alpha left out: tool error from map_list: not_found/);
    expect(await sb.read(".claude/CLAUDE.md")).not.toContain("Top-level maps");
    server.state.mapListError = false;
    server.state.mcpStatus = 503;
    sb.io.reset();
    // The entries and the block are still written; the artifacts are not (exit 2).
    expect(await connect(sb.io, { providers: ["claude"] })).toBe(2);
    expect(sb.io.err()).toMatch(
      /instructions written without KB details: protocol error .*\(HTTP 503\)/,
    );
    expect(sb.io.err()).toMatch(/artifacts not provisioned .*protocol error .*\(HTTP 503\)/);
  });
});

describe("the written entry works", () => {
  it("an SDK client using the Claude entry's URL and header (token from env) lists and calls tools", async () => {
    expect(
      await connect(sb.io, {
        providers: ["claude"],
        kbs: ["alpha", "beta"],
        serverUrl: server.url,
        tokenEnv: "CARTO_TOKEN",
      }),
    ).toBe(0);
    const entry = JSON.parse(await sb.read(PROVIDER_FILES.claude)).mcpServers.cartographer;
    // Expand ${VAR} exactly as Claude Code does.
    const auth = String(entry.headers.Authorization).replace(
      /\$\{(\w+)\}/g,
      (_, v: string) => sb.io.env[v] ?? "",
    );
    const session = await openMcpSession(entry.url, { Authorization: auth });
    try {
      expect(await session.listTools()).toEqual(["atlas_overview", "map_list", "search"]);
      expect(JSON.parse(await session.callTool("map_list", { kb: "beta" })).maps[0].name).toBe(
        "beta-top",
      );
    } finally {
      await session.close();
    }
  });

  it("server_url may carry an MCP path; the base strips it", () => {
    expect(baseUrlOf("http://127.0.0.1:39273/mcp")).toBe("http://127.0.0.1:39273");
    expect(baseUrlOf("http://h:1/prefix/mcp/routed?kbs=a")).toBe("http://h:1/prefix");
    expect(baseUrlOf("http://h:1/")).toBe("http://h:1");
    expect(baseUrlOf("http://h:1/mcpx")).toBe("http://h:1/mcpx");
  });
});
