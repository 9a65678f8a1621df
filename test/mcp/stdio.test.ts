import { PassThrough } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { memoryLogger } from "../../src/logger.js";
import type { Cartographer } from "../../src/mcp/app.js";
import { KbSurface } from "../../src/mcp/kb-surface.js";
import { RoutedSurface } from "../../src/mcp/routed-surface.js";
import { serveStdio, stdioSurfaceOf } from "../../src/mcp/stdio.js";
import type { ToolSpec } from "../../src/tools/spec.js";
import { must, probeTools, type TempMounts, tempMounts } from "../support/mcp-kit.js";

let kbs: TempMounts;

/** What stdioSurfaceOf reads of an app: its served surfaces and the status of every KB. */
const app = (served: KbSurface[], statuses: Cartographer["kbs"] = []) =>
  ({
    surfaces: new Map(served.map((s, i) => [String(i), s])),
    kbs: statuses,
    unavailable: () => undefined,
  }) as unknown as Cartographer;
beforeAll(async () => {
  kbs = await tempMounts(["one", "two"]);
});
afterAll(async () => kbs.cleanup());

/** Writes lines to a served surface and collects every stdout line as parsed JSON. */
async function session() {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const raw: string[] = [];
  let pending = "";
  stdout.on("data", (c: Buffer) => {
    pending += c.toString("utf8");
    const parts = pending.split("\n");
    pending = parts.pop() ?? "";
    raw.push(...parts);
  });
  const logger = memoryLogger();
  const surface = new KbSurface({
    runtime: must(kbs.byName.one).runtime,
    specs: probeTools({ reads: 0, writes: 0 }),
    logger,
  });
  const served = await serveStdio(surface, { stdin, stdout, logger, version: "test" });
  const waitFor = async (n: number) => {
    for (let i = 0; i < 200 && raw.length < n; i++) await new Promise((r) => setTimeout(r, 5));
    return raw.map((l) => JSON.parse(l));
  };
  return { stdin, raw, waitFor, served, logger };
}

const init = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "t", version: "1" },
  },
};

describe("serveStdio", () => {
  it("answers a malformed line with a JSON-RPC error and keeps serving; stdout carries protocol only", async () => {
    const s = await session();
    s.stdin.write("this is not json\n");
    s.stdin.write('{"hello":"world","id":7}\n');
    s.stdin.write(`${JSON.stringify(init)}\n`);
    s.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
    s.stdin.write(
      `${JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "probe_read", arguments: { id: "z" } } })}\n`,
    );
    const lines = await s.waitFor(4);
    expect(lines[0]).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32700, message: expect.stringContaining("Parse error") },
    });
    expect(lines[1]).toMatchObject({ jsonrpc: "2.0", id: 7, error: { code: -32600 } });
    expect(lines[2]).toMatchObject({
      id: 1,
      result: {
        serverInfo: { name: "cartographer", version: "test" },
        capabilities: { tools: {} },
      },
    });
    expect(lines[3]).toMatchObject({
      id: 2,
      result: { content: [{ type: "text", text: '{"read":"z"}' }] },
    });
    expect(s.raw.every((l) => l.startsWith('{"'))).toBe(true);
    s.stdin.end();
    await s.served.closed;
  });

  it("malformed params answer -32602 with a one-line message, never -32603 with a schema dump", async () => {
    const s = await session();
    s.stdin.write(`${JSON.stringify(init)}\n`);
    s.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
    const bad = [
      { jsonrpc: "2.0", id: 2, method: "tools/call" },
      { jsonrpc: "2.0", id: 3, method: "tools/call", params: { arguments: {} } },
      { jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: 42 } },
      { jsonrpc: "2.0", id: 5, method: "tools/list", params: { cursor: 7 } },
      { jsonrpc: "2.0", id: 6, method: "initialize" },
    ];
    for (const m of bad) s.stdin.write(`${JSON.stringify(m)}\n`);
    // The guard answers before the SDK dispatches, so these may overtake initialize's answer.
    const lines = (await s.waitFor(1 + bad.length)).filter((l) => l.id !== 1);
    for (const line of lines) {
      expect(line.error.code).toBe(-32602);
      expect(line.error.message).toMatch(/^Invalid params for [a-z/]+: \S/);
      expect(line.error.message).not.toContain("\n");
      expect(line.error.message.length).toBeLessThan(160);
    }
    expect(lines.map((l) => l.id).sort()).toEqual([2, 3, 4, 5, 6]);
    expect(lines.find((l) => l.id === 2).error.message).toContain("tools/call: params");
    s.stdin.end();
    await s.served.closed;
  });

  it("EOF on stdin: calls already read are answered before the session closes", async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    let out = "";
    stdout.on("data", (c: Buffer) => {
      out += c.toString("utf8");
    });
    const logger = memoryLogger();
    const slow: ToolSpec = {
      name: "slow_read",
      description: "Waits, then answers.",
      inputSchema: { type: "object", properties: {} },
      readOnly: true,
      advanced: false,
      resource: "whole",
      auditFields: [],
      handler: async () => {
        await new Promise((r) => setTimeout(r, 100));
        return { done: true };
      },
    };
    const surface = new KbSurface({ runtime: must(kbs.byName.one).runtime, specs: [slow], logger });
    const served = await serveStdio(surface, { stdin, stdout, logger, version: "test" });
    stdin.write(`${JSON.stringify(init)}\n`);
    stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
    stdin.end(
      `${JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "slow_read", arguments: {} } })}\n`,
    );
    await served.closed;
    const lines = out
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.id)).toEqual([1, 2]);
    expect(lines[1]).toMatchObject({ result: { content: [{ text: '{"done":true}' }] } });
  });

  it("EOF after a cancelled request: the session closes without waiting for its answer", async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const logger = memoryLogger();
    let releaseHang: (value: unknown) => void = () => {};
    const hang: ToolSpec = {
      name: "hang_read",
      description: "Never answers.",
      inputSchema: { type: "object", properties: {} },
      readOnly: true,
      advanced: false,
      resource: "whole",
      auditFields: [],
      handler: () => new Promise((r) => (releaseHang = r)),
    };
    const surface = new KbSurface({ runtime: must(kbs.byName.one).runtime, specs: [hang], logger });
    const served = await serveStdio(surface, { stdin, stdout, logger, version: "test" });
    stdin.write(`${JSON.stringify(init)}\n`);
    stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
    stdin.write(
      `${JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "hang_read", arguments: {} } })}\n`,
    );
    stdin.end(
      `${JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 3 } })}\n`,
    );
    const outcome = await Promise.race([
      served.closed.then(() => "closed"),
      new Promise((r) => setTimeout(() => r("still open"), 2000)),
    ]);
    expect(outcome).toBe("closed");
    releaseHang({}); // else closing the mount waits out its grace period for this call
  });

  it("one KB → its surface; several → a routed surface over all", () => {
    const logger = memoryLogger();
    const [one, two] = kbs.mounts.map(
      (m) =>
        new KbSurface({ runtime: m.runtime, specs: probeTools({ reads: 0, writes: 0 }), logger }),
    );
    expect(stdioSurfaceOf(app([must(one)]))).toBe(one);
    const routed = stdioSurfaceOf(app([must(one), must(two)]));
    expect(routed).toBeInstanceOf(RoutedSurface);
    expect(routed.kbNames).toEqual(["one", "two"]);
  });

  it("no served KB is an error naming the ones that could not be opened", () => {
    expect(() => stdioSurfaceOf(app([]))).toThrow("stdio needs at least one KB: pass --kb PATH");
    const bad = { name: "bad", status: "unavailable", reason: "data/ is missing" } as const;
    expect(() => stdioSurfaceOf(app([], [bad]))).toThrow(
      "stdio needs at least one KB, and none could be opened: 'bad' (data/ is missing)",
    );
  });
});
