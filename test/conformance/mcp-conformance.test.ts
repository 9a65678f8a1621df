/**
 * The official MCP conformance suite's server scenarios that apply to a tools-only stateless
 * server, run against the built `cartographer serve` on a per-KB endpoint and on /mcp/routed.
 * A scenario fails this test when any of its checks is not SUCCESS.
 *
 * Two suite scenarios call fixed tool names our server does not have (`test_simple_text`,
 * `test_error_handling`); against us they exercise the unknown-tool path (an `isError` text
 * result), which makes tools-call-simple-text pass without a real text tool. The last tests
 * therefore make the same checks with real tools through the SDK over Streamable HTTP.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  type CallToolResult,
  CallToolResultSchema,
  type Progress,
} from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runScenario, type Served, serveTempKb } from "./helpers.js";

const SCENARIOS = [
  "server-initialize",
  "ping",
  "tools-list",
  "tools-call-simple-text",
  "tools-call-error",
  "dns-rebinding-protection",
  // MCP content capabilities: the scenarios that a KB can hold the fixtures of.
  "logging-set-level",
  "completion-complete",
  "resources-list",
  "prompts-list",
  "prompts-get-simple",
  "prompts-get-with-args",
];

/**
 * The suite's prompt fixtures as KB skills (prompts are the KB's skills): a prompt without
 * arguments, and one whose declared arguments arg1 and arg2 are substituted into the text.
 */
function writeSkillFixtures(kbDir: string): void {
  const skill = (name: string, frontmatter: string, body: string) => {
    mkdirSync(join(kbDir, "skills", name), { recursive: true });
    writeFileSync(
      join(kbDir, "skills", name, "SKILL.md"),
      `---\nname: ${name}\n${frontmatter}---\n${body}`,
    );
  };
  skill(
    "test_simple_prompt",
    "description: A simple prompt\n",
    "This is a simple prompt for testing.\n",
  );
  skill(
    "test_prompt_with_arguments",
    "description: A prompt with arguments\narguments: [arg1, arg2]\n",
    "Prompt with arguments: arg1='{{arg1}}', arg2='{{arg2}}'\n",
  );
}

let served: Served;
beforeAll(async () => {
  served = await serveTempKb();
  writeSkillFixtures(served.kbDir);
}, 60_000);
afterAll(async () => served?.stop());

describe.each(["/mcp/kb", "/mcp/routed"])("official conformance scenarios on %s", (path) => {
  // One node process per scenario; a few at a time (2 cores), each a test of its own.
  it.concurrent.each(SCENARIOS)(
    "%s passes every check",
    async (s) => {
      const run = await runScenario(served.url + path, s);
      expect(run.checks.length, `${s} produced no checks:\n${run.output}`).toBeGreaterThan(0);
      const bad = run.checks.filter((c) => c.status !== "SUCCESS" && c.status !== "INFO");
      expect(bad, `${s} failed:\n${run.output}`).toEqual([]);
      expect(run.code, `${s} exit code`).toBe(0);
      if (s === "dns-rebinding-protection")
        expect(run.checks.map((c) => c.id).sort()).toEqual([
          "localhost-host-rebinding-rejected",
          "localhost-host-valid-accepted",
        ]);
    },
    60_000,
  );
});

describe("the suite's tool-call checks, made with real tools", () => {
  async function withClient<T>(fn: (c: Client) => Promise<T>): Promise<T> {
    const client = new Client({ name: "conformance-equivalent", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${served.url}/mcp/kb`)));
    try {
      return await fn(client);
    } finally {
      await client.close();
    }
  }

  it("tools-call-simple-text: a real tool returns one non-empty text content, not an error", async () => {
    const r = (await withClient((c) => c.callTool({ name: "kb_status" }))) as CallToolResult;
    expect(r.isError ?? false).toBe(false);
    expect(r.content).toHaveLength(1);
    expect(r.content[0]?.type).toBe("text");
    const text = r.content[0]?.type === "text" ? r.content[0].text : "";
    expect(JSON.parse(text)).toMatchObject({ name: "kb" });
  });

  it("tools-call-with-progress: a real long tool (reindex) sends increasing progress over SSE", async () => {
    const seen: Progress[] = [];
    const r = await withClient((c) =>
      c.request(
        {
          method: "tools/call",
          params: { name: "reindex", arguments: {}, _meta: { progressToken: "p-1" } },
        },
        CallToolResultSchema,
        { onprogress: (p) => seen.push(p) },
      ),
    );
    expect(r.isError ?? false).toBe(false);
    expect(seen.length).toBeGreaterThanOrEqual(2);
    for (let i = 1; i < seen.length; i++)
      expect(seen[i]?.progress ?? 0).toBeGreaterThan(seen[i - 1]?.progress ?? 0);
  });

  it("tools-call-error: a failing real tool answers isError with `<code>: <message>` text", async () => {
    const r = (await withClient((c) =>
      c.callTool({ name: "concept_read", arguments: { id: "missing/x" } }),
    )) as CallToolResult;
    expect(r.isError).toBe(true);
    const text = r.content[0]?.type === "text" ? r.content[0].text : "";
    expect(text).toMatch(/^not_found: .*missing\/x/);
  });
});
