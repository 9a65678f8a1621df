/**
 * GET /metrics after a scripted workload through the official SDK client on a real server:
 * the counts match what was called, and no label value carries a concept id, a query, a raw
 * path or a made-up tool name (docs/decisions.md "Metrics: labels are KB and tool names only").
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MemoryAudit, type TempMounts, tempMounts } from "../support/mcp-kit.js";
import {
  type MeteredServer,
  parseScrape,
  recordingLogger,
  type Sample,
  sampleValue,
  sdkClient,
  serveMetered,
} from "./helpers.js";

const IDS = ["zebu-xyzzy-ledger-1", "zebu-xyzzy-ledger-2", "zebu-xyzzy-ledger-3"];
const QUERY = "plover quixotic marmalade";
const MADE_UP_TOOL = "frobnicate_the_widgets";

let kbs: TempMounts;
let server: MeteredServer;
let client: Client;
let samples: Sample[];
let text: string;
const audit = new MemoryAudit();

beforeAll(async () => {
  kbs = await tempMounts(["alpha"]);
  server = await serveMetered(kbs.mounts, { logger: recordingLogger(), audit });
  client = await sdkClient(`${server.url}/mcp/alpha`);
  for (const id of IDS)
    await client.callTool({
      name: "concept_write",
      arguments: { id, frontmatter: { type: "note", title: `Title ${id}` }, body: `${QUERY}\n` },
    });
  for (let i = 0; i < 2; i++)
    await client.callTool({ name: "concept_read", arguments: { id: IDS[0] } });
  await client.callTool({ name: "search", arguments: { query: QUERY } });
  await client.callTool({ name: MADE_UP_TOOL, arguments: { id: IDS[1] } });
  const response = await fetch(`${server.url}/metrics`);
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
  text = await response.text();
  samples = parseScrape(text);
}, 60_000);

afterAll(async () => {
  await client?.close();
  await server?.close();
  await kbs?.cleanup();
});

const calls = (tool: string, outcome: string) =>
  sampleValue(samples, "cartographer_tool_calls_total", {
    tool,
    kb: "alpha",
    outcome,
    transport: "http",
  });

describe("GET /metrics after a workload", () => {
  it("counts tool calls by tool, KB, outcome and transport", () => {
    expect(calls("concept_write", "success")).toBe(3);
    expect(calls("concept_read", "success")).toBe(2);
    expect(calls("search", "success")).toBe(1);
    // A tool name the client made up is counted, under a fixed label value.
    expect(calls("unknown", "unknown_tool")).toBe(1);
    const latency = (tool: string) =>
      sampleValue(samples, "cartographer_tool_call_duration_seconds_count", { tool, kb: "alpha" });
    expect(latency("concept_write")).toBe(3);
    expect(latency("concept_read")).toBe(2);
    expect(
      sampleValue(samples, "cartographer_search_duration_seconds_count", { kb: "alpha" }),
    ).toBe(1);
  });

  it("counts HTTP requests by route template and status", () => {
    // initialize, initialized and 7 tool calls at least, all on the template of /mcp/alpha.
    const mcp = sampleValue(samples, "cartographer_http_requests_total", {
      route: "/mcp/{kb}",
      method: "POST",
    });
    expect(mcp).toBeGreaterThanOrEqual(9);
    expect(samples.some((s) => s.labels.route === "/mcp/alpha")).toBe(false);
  });

  it("reports the audit appends, connections and cap, index state and nothing in flight", () => {
    // An attempt and a completion per call.
    expect(sampleValue(samples, "cartographer_audit_appends_total", { result: "ok" })).toBe(
      audit.records.length,
    );
    expect(audit.records.length).toBe(14);
    expect(sampleValue(samples, "cartographer_audit_append_duration_seconds_count")).toBe(14);
    expect(sampleValue(samples, "cartographer_audit_healthy", { mode: "best_effort" })).toBe(1);
    expect(sampleValue(samples, "cartographer_http_connection_cap")).toBe(256);
    expect(sampleValue(samples, "cartographer_http_connections")).toBeGreaterThanOrEqual(1);
    expect(sampleValue(samples, "cartographer_index_state", { kb: "alpha", state: "ready" })).toBe(
      1,
    );
    expect(sampleValue(samples, "cartographer_index_state", { kb: "alpha", state: "failed" })).toBe(
      0,
    );
    expect(sampleValue(samples, "cartographer_tool_calls_in_flight", { kb: "alpha" })).toBe(0);
    expect(sampleValue(samples, "process_cpu_user_seconds_total")).toBeGreaterThan(0);
    // A small KB: no search memory (under 10,000 concepts), said as such, nothing held.
    const memory = (state: string) =>
      sampleValue(samples, "cartographer_search_memory_state", { kb: "alpha", state });
    expect(memory("declined") + memory("off")).toBe(1);
    expect(memory("ready")).toBe(0);
    const words = (state: string) =>
      sampleValue(samples, "cartographer_search_word_memory_state", { kb: "alpha", state });
    expect(words("declined") + words("off")).toBe(1);
    expect(words("ready")).toBe(0);
    expect(sampleValue(samples, "cartographer_search_memory_bytes", { kb: "alpha" })).toBe(0);
    expect(sampleValue(samples, "cartographer_search_memory_served_total", { kb: "alpha" })).toBe(
      0,
    );
  });

  it("a second scrape counts the first one on /metrics", async () => {
    const again = parseScrape(await (await fetch(`${server.url}/metrics`)).text());
    expect(
      sampleValue(again, "cartographer_http_requests_total", { route: "/metrics", status: "200" }),
    ).toBeGreaterThanOrEqual(1);
  });

  it("no label value carries a concept id, the query, a raw path or a made-up tool name", () => {
    const forbidden = [
      ...IDS,
      "xyzzy",
      "zebu",
      QUERY,
      "plover",
      "quixotic",
      MADE_UP_TOOL,
      "frobnicate",
    ];
    const values = samples.flatMap((s) => Object.values(s.labels));
    expect(values.length).toBeGreaterThan(0);
    const leaks = values.filter((v) =>
      forbidden.some((w) => v.toLowerCase().includes(w.toLowerCase())),
    );
    expect(leaks).toEqual([]);
    // Nor anywhere else in the text (help strings, names).
    for (const word of forbidden) expect(text).not.toContain(word);
    const kbLabels = new Set(samples.flatMap((s) => (s.labels.kb ? [s.labels.kb] : [])));
    expect([...kbLabels]).toEqual(["alpha"]);
  });
});
