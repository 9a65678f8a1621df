/**
 * The tools/call path between the stdio line and the surface (per-call overhead; docs/benchmarks.md
 * "Per-call overhead over stdio"): the SDK Server's tools/call wrapper is skipped (the guard
 * already checks the params, our results are valid by construction), and what that wrapper also did
 * still happens elsewhere.
 */
import { PassThrough } from "node:stream";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { memoryLogger } from "../../src/logger.js";
import type { CallContext } from "../../src/mcp/context.js";
import { serveStdio } from "../../src/mcp/stdio.js";
import { freezeList, type ToolSurface, textResult } from "../../src/mcp/surface.js";

/** A surface answering `echo` with a text item carrying a key the SDK's content schema strips. */
function surface(calls: Array<{ name: string; args: unknown; ctx: CallContext }>): ToolSurface {
  const list = freezeList([{ name: "echo", inputSchema: { type: "object" } }]);
  return {
    kbNames: ["one"],
    descriptors: () => list,
    callTool: async (name, args, ctx) => {
      calls.push({ name, args, ctx });
      if (name !== "echo") return textResult(`tool not found: ${name}`, true);
      return {
        content: [{ type: "text", text: JSON.stringify(args), marker: 1 }],
      } as unknown as CallToolResult;
    },
  };
}

async function session() {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const lines: string[] = [];
  let pending = "";
  stdout.on("data", (c: Buffer) => {
    pending += c.toString("utf8");
    const parts = pending.split("\n");
    pending = parts.pop() ?? "";
    lines.push(...parts);
  });
  const calls: Array<{ name: string; args: unknown; ctx: CallContext }> = [];
  const logger = memoryLogger();
  const served = await serveStdio(surface(calls), { stdin, stdout, logger, version: "test" });
  const send = (m: unknown) => stdin.write(`${JSON.stringify(m)}\n`);
  send({
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "t", version: "1" },
    },
  });
  send({ jsonrpc: "2.0", method: "notifications/initialized" });
  /** The parsed answer to request `id` (waits for it). */
  const answer = async (id: number | string) => {
    for (let i = 0; i < 400; i++) {
      const hit = lines.map((l) => JSON.parse(l)).find((m) => m.id === id && !("method" in m));
      if (hit) return hit;
      await new Promise((r) => setTimeout(r, 5));
    }
    throw new Error(`no answer to ${id}; got ${lines.join("\n")}`);
  };
  await answer(0);
  return { send, answer, lines, calls, close: () => served.close() };
}

const call = (id: number, params: unknown) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params,
});

describe("tools/call dispatch", () => {
  it("sends the surface's result as built: no second parse of it by the SDK Server wrapper", async () => {
    const s = await session();
    s.send(call(1, { name: "echo", arguments: { q: "x" } }));
    const a = await s.answer(1);
    // The Server wrapper's CallToolResultSchema parse would strip `marker` (TextContent is not loose).
    expect(a.result).toEqual({ content: [{ type: "text", text: '{"q":"x"}', marker: 1 }] });
    expect(s.calls.map((c) => c.name)).toEqual(["echo"]);
    expect(s.calls[0]?.ctx.transport).toBe("stdio");
    await s.close();
  });

  it("still refuses malformed params (-32602, the guard) and task-augmented calls (no task capability)", async () => {
    const s = await session();
    s.send(call(2, { arguments: {} }));
    s.send(call(3, { name: "echo", arguments: [1] }));
    s.send(call(4, { name: "echo", arguments: {}, task: { ttl: 1000 } }));
    s.send({ jsonrpc: "2.0", id: 5, method: "tools/call" });
    expect((await s.answer(2)).error).toEqual({
      code: -32602,
      message:
        "Invalid params for tools/call: params.name: Invalid input: expected string, received undefined",
    });
    expect((await s.answer(3)).error.code).toBe(-32602);
    expect((await s.answer(4)).error).toEqual({
      code: -32603,
      message: "Server does not support task creation (required for tools/call)",
    });
    expect((await s.answer(5)).error.code).toBe(-32602);
    expect(s.calls).toEqual([]);
    await s.close();
  });

  it("answers an unknown tool, a missing arguments object and progress as before", async () => {
    const s = await session();
    s.send(call(6, { name: "nope", arguments: {} }));
    s.send(call(7, { name: "echo" }));
    s.send(call(8, { name: "echo", arguments: {}, _meta: { progressToken: "p" } }));
    expect((await s.answer(6)).result).toEqual({
      content: [{ type: "text", text: "tool not found: nope" }],
      isError: true,
    });
    expect((await s.answer(7)).result.content[0].text).toBe("{}");
    await s.answer(8);
    const progress = s.lines
      .map((l) => JSON.parse(l))
      .filter((m) => m.method === "notifications/progress")
      .map((m) => m.params);
    expect(progress).toEqual([
      { progressToken: "p", progress: 0 },
      { progressToken: "p", progress: 1, total: 1 },
    ]);
    await s.close();
  });
});
