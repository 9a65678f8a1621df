/**
 * Shutdown never closes the audit sink under a call: closing the server (then the sink, the
 * order serve.ts uses) waits for every call in flight, even one whose client hung up, so its
 * completion reaches the log and the chain verifies with nothing incomplete.
 */
import { readFile } from "node:fs/promises";
import { request } from "node:http";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openAuditSink } from "../../src/audit/sink.js";
import { verifyAudit } from "../../src/audit/verify.js";
import { startHttpServer } from "../../src/http/server.js";
import { memoryLogger, silentLogger } from "../../src/logger.js";
import { createCartographer } from "../../src/mcp/app.js";
import { SHUTTING_DOWN } from "../../src/mcp/call-pipeline.js";
import { LOCAL_ADMIN } from "../../src/mcp/context.js";
import { KbSurface } from "../../src/mcp/kb-surface.js";
import { surfaceForMount } from "../../src/mcp/surface-for-mount.js";
import { closeMount } from "../../src/runtime/mount.js";
import { toolsFor } from "../../src/tools/registry.js";
import type { ToolSpec } from "../../src/tools/spec.js";
import { MemoryAudit, must, tempMounts } from "../support/mcp-kit.js";
import { useTempDirs } from "../support/temp-dir.js";

// Registered first: its hook runs after the cleanups below (server, sink, mounts).
const newDir = useTempDirs("carto-shutdown-audit-");
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A tool that signals when it runs and finishes only when released. */
function gatedTool(readOnly: boolean) {
  let release: () => void = () => {};
  let started: () => void = () => {};
  const running = new Promise<void>((r) => (started = r));
  const gate = new Promise<void>((r) => (release = r));
  const spec: ToolSpec = {
    name: readOnly ? "slow_read" : "slow_write",
    description: "Waits until released.",
    inputSchema: { type: "object", properties: {} },
    readOnly,
    advanced: false,
    resource: readOnly ? "whole" : "exact",
    auditFields: [],
    ...(readOnly ? {} : { targets: () => [{ id: "late", proposedType: "note", write: true }] }),
    handler: async (_args, ctx) => {
      started();
      await gate;
      // Touches the index: it must still be open when a late call gets here.
      return {
        hits: ctx.runtime.index.search({ query: "x", limit: 1, visibility: { all: true } }),
      };
    },
  };
  return { spec, running, release };
}

describe("shutdown with a call in flight whose client hung up", () => {
  for (const readOnly of [true, false]) {
    it(`${readOnly ? "a read" : "a write"}: its completion is in the log before the sink closes`, async () => {
      const mounts = await tempMounts(["k"]);
      cleanups.push(() => mounts.cleanup());
      const dir = newDir();
      const log = join(dir, "audit.jsonl");
      const audit = await openAuditSink({ path: log, mode: "best_effort" });
      const slow = gatedTool(readOnly);
      const logger = memoryLogger();
      const app = await createCartographer({
        mounts: mounts.mounts,
        logger,
        audit,
        toolsFor: (settings) => [...toolsFor(settings), slow.spec],
      });
      const s = await startHttpServer({ app, port: 0, version: "1" });
      cleanups.push(() => s.close());
      const req = request({
        host: "127.0.0.1",
        port: s.port,
        method: "POST",
        path: "/mcp",
        headers: {
          "Content-Type": "application/json",
          Accept: "application/json, text/event-stream",
        },
      });
      req.on("error", () => {});
      req.end(
        JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: { name: slow.spec.name, arguments: {} },
        }),
      );
      await slow.running;
      req.destroy();
      await new Promise((r) => setTimeout(r, 50));
      let closed = false;
      const shutdown = s
        .close()
        .then(() => app.close())
        .then(() => audit.close())
        .then(() => {
          closed = true;
        });
      await new Promise((r) => setTimeout(r, 50));
      expect(closed).toBe(false);
      slow.release();
      await shutdown;

      const lines = (await readFile(log, "utf8"))
        .split("\n")
        .filter((l) => l !== "")
        .map((l) => JSON.parse(l) as { phase: string; tool: string; outcome?: string });
      expect(lines.map((l) => [l.phase, l.tool, l.outcome])).toEqual([
        ["attempt", slow.spec.name, undefined],
        ["completion", slow.spec.name, "success"],
      ]);
      expect(audit.dropped()).toBe(0);
      const report = await verifyAudit({ log });
      expect(report.ok).toBe(true);
      expect(report.incomplete).toBe(0);
      expect(logger.lines.join("\n")).not.toMatch(/failed/);
    });
  }
});

describe("a call that arrives once its KB is closing", () => {
  it("is refused before anything runs or is recorded", async () => {
    const mounts = await tempMounts(["k"]);
    cleanups.push(() => mounts.cleanup());
    const mount = must(mounts.byName.k);
    const audit = new MemoryAudit();
    const surface = surfaceForMount(mount, { audit, logger: silentLogger });
    await closeMount(mount);
    const args = { id: "after", frontmatter: { type: "note" }, body: "x\n" };
    const ctx = { principal: LOCAL_ADMIN, transport: "in-memory" as const, requestId: "" };
    const result = await surface.callTool("concept_write", args, ctx);
    expect(result).toEqual({ content: [{ type: "text", text: SHUTTING_DOWN }], isError: true });
    expect(audit.records).toEqual([]);
    expect(await mount.store.tryReadConcept("after")).toBeNull();
  });
});

describe("a hung call", () => {
  it("holds shutdown only for the grace period, and is named in a warning", async () => {
    const mounts = await tempMounts(["k"]);
    cleanups.push(() => mounts.cleanup());
    const mount = must(mounts.byName.k);
    const slow = gatedTool(true);
    cleanups.push(async () => slow.release());
    const logger = memoryLogger();
    const surface = new KbSurface({ runtime: mount.runtime, specs: [slow.spec], logger });
    const ctx = { principal: LOCAL_ADMIN, transport: "in-memory" as const, requestId: "" };
    void surface.callTool("slow_read", {}, ctx);
    await slow.running;
    const started = Date.now();
    expect(await mount.runtime.calls.drain(100)).toBe(1);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(logger.lines.join("\n")).toMatch(/1 call\(s\) on k still running after 100 ms/);
    slow.release();
    expect(await mount.runtime.calls.drain(1000)).toBe(0);
  });
});
