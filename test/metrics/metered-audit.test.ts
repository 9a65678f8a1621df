/**
 * The audit in the metrics: a required-mode log that cannot be written shows as
 * `cartographer_audit_healthy{mode="required"} 0` (the alert in docs/operations.md "Metrics") and
 * the refused call as outcome `audit_unavailable`; a best_effort drop counts as a failed append.
 */
import { afterEach, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/logger.js";
import { MemoryAudit, tempMounts } from "../support/mcp-kit.js";
import { parseScrape, sampleValue, sdkClient, serveMetered } from "./helpers.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

async function scrapeAfterFailingCall(audit: MemoryAudit) {
  const kbs = await tempMounts(["alpha"]);
  const server = await serveMetered(kbs.mounts, { logger: silentLogger, audit });
  cleanups.push(() => server.close().then(() => kbs.cleanup()));
  const client = await sdkClient(`${server.url}/mcp/alpha`);
  cleanups.unshift(() => client.close());
  await client.callTool({ name: "kb_status", arguments: {} });
  audit.failing = true;
  await client.callTool({ name: "kb_status", arguments: {} });
  return parseScrape(await (await fetch(`${server.url}/metrics`)).text());
}

describe("audit metrics", () => {
  it("required mode: unhealthy, the call refused as audit_unavailable", async () => {
    const samples = await scrapeAfterFailingCall(new MemoryAudit("required"));
    expect(sampleValue(samples, "cartographer_audit_healthy", { mode: "required" })).toBe(0);
    const calls = (outcome: string) =>
      sampleValue(samples, "cartographer_tool_calls_total", { tool: "kb_status", outcome });
    expect(calls("success")).toBe(1);
    expect(calls("audit_unavailable")).toBe(1);
    expect(sampleValue(samples, "cartographer_audit_appends_total", { result: "ok" })).toBe(2);
    expect(sampleValue(samples, "cartographer_audit_appends_total", { result: "failed" })).toBe(1);
  });

  it("best_effort: a dropped append counts as failed, the call still succeeds", async () => {
    const samples = await scrapeAfterFailingCall(new MemoryAudit("best_effort"));
    expect(sampleValue(samples, "cartographer_audit_healthy", { mode: "best_effort" })).toBe(0);
    expect(
      sampleValue(samples, "cartographer_tool_calls_total", {
        tool: "kb_status",
        outcome: "success",
      }),
    ).toBe(2);
    expect(sampleValue(samples, "cartographer_audit_appends_total", { result: "failed" })).toBe(2);
  });
});
