import { execFileSync } from "node:child_process";
import { request } from "node:http";
import { describe, expect, it } from "vitest";
import { memoryLogger } from "../../src/logger.js";
import { toolsFor } from "../../src/tools/registry.js";
import type { ToolSpec } from "../../src/tools/spec.js";
import { tempMounts } from "../support/mcp-kit.js";
import { MCP_HEADERS, serveMounts } from "./helpers.js";

describe("graceful close with a write in flight", () => {
  it("a client that hangs up mid-write does not let close() shut the index under the write", async () => {
    const mounts = await tempMounts(["w"]);
    let release: () => void = () => {};
    let started: () => void = () => {};
    const running = new Promise<void>((r) => (started = r));
    let outcome = "pending";
    const slowWrite: ToolSpec = {
      name: "slow_write",
      description: "Waits, then writes one concept.",
      inputSchema: { type: "object", properties: {} },
      readOnly: false,
      advanced: false,
      resource: "exact",
      auditFields: [],
      targets: () => [{ id: "late", proposedType: "note", write: true }],
      handler: async (_args, ctx) => {
        started();
        await new Promise<void>((r) => (release = r));
        try {
          const plan = await ctx.runtime.store.planConceptWrite({
            id: "late",
            frontmatter: { type: "note", title: "Late" },
            body: "written during shutdown\n",
            mode: "upsert",
          });
          await ctx.runtime.apply(plan);
          outcome = "applied";
          return plan.result;
        } catch (err) {
          outcome = `failed: ${(err as Error).message}`;
          throw err;
        }
      },
    };
    const s = await serveMounts(mounts.mounts, {
      logger: memoryLogger(),
      version: "1",
      toolsFor: (settings) => [...toolsFor(settings), slowWrite],
    });
    try {
      const req = request({
        host: "127.0.0.1",
        port: s.port,
        method: "POST",
        path: "/mcp",
        headers: MCP_HEADERS,
      });
      req.on("error", () => {});
      req.end(
        JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: { name: "slow_write", arguments: {} },
        }),
      );
      await running;
      req.destroy(); // the client gives up; the write is still under way on the server
      await new Promise((r) => setTimeout(r, 50));
      let closed = false;
      const closing = s.close().then(() => {
        closed = true;
      });
      await new Promise((r) => setTimeout(r, 50));
      expect(closed).toBe(false);
      release();
      await closing;
      expect(outcome).toBe("applied");
      const root = mounts.mounts[0]?.settings.root as string;
      const log = execFileSync("git", ["-C", root, "log", "--format=%s", "-1"], {
        encoding: "utf8",
      });
      expect(log.trim()).toBe("slow_write: late");
    } finally {
      release();
      await s.close();
      await mounts.cleanup();
    }
  });
});

describe("graceful close with a stalled upload", () => {
  it("a client that never finishes its body does not hold shutdown", async () => {
    const mounts = await tempMounts(["s"]);
    const s = await serveMounts(mounts.mounts, {
      logger: memoryLogger(),
      version: "1",
    });
    try {
      const req = request({
        host: "127.0.0.1",
        port: s.port,
        method: "POST",
        path: "/mcp",
        headers: { ...MCP_HEADERS, "Content-Length": "100" },
      });
      req.on("error", () => {});
      req.write("{");
      await new Promise((r) => setTimeout(r, 100));
      const outcome = await Promise.race([
        s.close().then(() => "closed"),
        new Promise((r) => setTimeout(() => r("still waiting"), 2000)),
      ]);
      expect(outcome).toBe("closed");
      req.destroy();
    } finally {
      await s.close();
      await mounts.cleanup();
    }
  });
});
