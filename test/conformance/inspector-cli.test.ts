/**
 * The MCP Inspector CLI (inspector-cli 1.0.3, the Inspector's `--cli` mode) lists and calls
 * tools against the built `cartographer serve` over Streamable HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inspector, type Served, serveTempKb } from "./helpers.js";

let served: Served;
beforeAll(async () => {
  served = await serveTempKb();
}, 60_000);
afterAll(async () => served?.stop());

interface ToolCallJson {
  content: { type: string; text: string }[];
  isError?: boolean;
}

describe("MCP Inspector CLI against cartographer serve", () => {
  it("tools/list returns the agent profile with schemas", async () => {
    const r = await inspector([`${served.url}/mcp/kb`, "--method", "tools/list"]);
    expect(r.code, r.stderr).toBe(0);
    const tools = (JSON.parse(r.stdout) as { tools: { name: string; inputSchema: unknown }[] })
      .tools;
    const names = tools.map((t) => t.name);
    expect(names).toContain("concept_write");
    expect(names).toContain("search");
    expect(names).not.toContain("reindex"); // advanced: hidden in the agent profile
    for (const t of tools) expect(t.inputSchema).toMatchObject({ type: "object" });
  });

  it("tools/call writes and reads a concept, and reports a tool error", async () => {
    const url = `${served.url}/mcp/kb`;
    const write = await inspector([
      url,
      "--method",
      "tools/call",
      "--tool-name",
      "log_append",
      "--tool-arg",
      "entry=Inspector was here.",
    ]);
    expect(write.code, write.stderr).toBe(0);
    expect((JSON.parse(write.stdout) as ToolCallJson).isError ?? false).toBe(false);

    const tail = await inspector([url, "--method", "tools/call", "--tool-name", "log_tail"]);
    const tailJson = JSON.parse(tail.stdout) as ToolCallJson;
    expect(tailJson.content[0]?.text).toContain("Inspector was here.");

    const missing = await inspector([
      url,
      "--method",
      "tools/call",
      "--tool-name",
      "concept_read",
      "--tool-arg",
      "id=missing/x",
    ]);
    const err = JSON.parse(missing.stdout) as ToolCallJson;
    expect(err.isError).toBe(true);
    expect(err.content[0]?.text).toMatch(/^not_found: /);
  });

  it("works on the routed endpoint too", async () => {
    const r = await inspector([
      `${served.url}/mcp/routed`,
      "--method",
      "tools/call",
      "--tool-name",
      "kb_status",
      "--tool-arg",
      "kb=kb",
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as ToolCallJson).content[0]?.text).toContain('"name":"kb"');
  });
});
