/**
 * The agent tools themselves read what the targets write. Runs the real CLIs when they are
 * installed — on PATH, or in $CARTOGRAPHER_TEST_AGENT_CLI_DIR (a node_modules/.bin with
 * @openai/codex and @anthropic-ai/claude-code) — each with a sandbox $HOME; skipped otherwise,
 * the reason in the test's name. Checked with codex-cli 0.171.0 and Claude Code 2.1.197.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { describe, expect, it } from "vitest";
import { claude as claudeTarget } from "../../../src/client/provision/targets/claude.js";
import { codex as codexTarget } from "../../../src/client/provision/targets/codex.js";
import { applyResult } from "../../client/provision/targets/apply.js";
import { artifact, context, fullSet } from "../../client/provision/targets/artifacts.js";
import { useTempDirs } from "../../support/temp-dir.js";

const sandbox = useTempDirs("carto-tgt-cli-");

function findBin(name: string): string | undefined {
  const dirs = [
    process.env.CARTOGRAPHER_TEST_AGENT_CLI_DIR,
    ...(process.env.PATH ?? "").split(delimiter),
  ];
  for (const d of dirs) if (d && existsSync(join(d, name))) return join(d, name);
  return undefined;
}

const CODEX = findBin("codex");
const CLAUDE = findBin("claude");
const why = (bin: string | undefined, name: string) =>
  bin ? "" : ` (skipped: ${name} is not on PATH nor in $CARTOGRAPHER_TEST_AGENT_CLI_DIR)`;

function run(bin: string, args: string[], home: string, cwd: string): string {
  return execFileSync(bin, args, {
    cwd,
    env: { PATH: process.env.PATH ?? "", HOME: home, NO_COLOR: "1" },
    encoding: "utf8",
    timeout: 50_000,
    stdio: ["ignore", "pipe", "pipe"],
  });
}

describe("Codex CLI reads what the Codex target writes", () => {
  it.skipIf(!CODEX).each(["user", "project"] as const)(
    `%s scope: codex loads config.toml (its hooks block is validated at load), mcp list shows the MCP tables, the prompt lists the skill and the agent${why(CODEX, "codex")}`,
    (scope) => {
      const home = sandbox();
      const proj = sandbox();
      execFileSync("git", ["init", "-q", proj]);
      // Codex reads a project's .codex/ only in a trusted project (docs/client.md).
      mkdirSync(join(home, ".codex"), { recursive: true });
      writeFileSync(
        join(home, ".codex", "config.toml"),
        `[projects.${JSON.stringify(proj)}]\ntrust_level = "trusted"\n`,
      );
      const apiKey = artifact("mcp", "apikey", {
        "apikey.json": `{"type":"http","url":"https://api.example/mcp","headers":{"X-Api-Key":"\${API_KEY}"}}`,
      });
      const result = codexTarget.render(
        [...fullSet(), apiKey],
        context(scope, home, proj, { bootstrapHook: true }),
      );
      applyResult(result);
      const list = run(CODEX as string, ["mcp", "list"], home, proj);
      expect(list).toMatch(
        /cartographer-homelab-grafana\s+https:\/\/grafana\.example\/mcp\s+GRAFANA_TOKEN/,
      );
      expect(list).toMatch(/cartographer-homelab-files\s+mcp-files\s+--root \/srv\s+FILES_KEY=/);
      const get = run(CODEX as string, ["mcp", "get", "cartographer-homelab-apikey"], home, proj);
      expect(get).toContain("env_http_headers: X-Api-Key=API_KEY");
      const prompt = run(CODEX as string, ["debug", "prompt-input", "hello"], home, proj);
      expect(prompt).toContain("kbinfra--query-rete: Guide for querying the infra map");
      expect(prompt).toContain("kb-reviewer: {\\nReviews KB concepts for broken links.");
    },
    60_000,
  );
});

interface StreamLine {
  type: string;
  subtype?: string;
  agents?: string[];
  skills?: string[];
  mcp_servers?: { name: string }[];
  hook_event?: string;
  outcome?: string;
}

describe("Claude Code reads what the Claude target writes", () => {
  it.skipIf(!CLAUDE).each(["user", "project"] as const)(
    `%s scope: claude mcp get shows the entries with \${VAR} kept; a session lists the skill, the agent, and runs the SessionStart hook${why(CLAUDE, "claude")}`,
    (scope) => {
      const home = sandbox();
      const proj = sandbox();
      const result = claudeTarget.render(
        fullSet(),
        context(scope, home, proj, { bootstrapHook: true }),
      );
      applyResult(result);
      const files = run(CLAUDE as string, ["mcp", "get", "cartographer-homelab-files"], home, proj);
      expect(files).toContain(scope === "user" ? "User config" : "Project config");
      expect(files).toMatch(/Command: mcp-files/);
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the reference must reach the file unexpanded
      expect(files).toContain("FILES_KEY=${FILES_KEY}");
      // A print-mode session without a login still starts: its init message lists what Claude
      // Code loaded, and the SessionStart hooks run before the (failing) model call.
      let out = "";
      try {
        out = run(
          CLAUDE as string,
          ["-p", "hi", "--output-format", "stream-json", "--verbose"],
          home,
          proj,
        );
      } catch (err) {
        out = String((err as { stdout?: string }).stdout ?? "");
      }
      const lines = out
        .split("\n")
        .filter((l) => l.startsWith("{"))
        .map((l) => JSON.parse(l) as StreamLine);
      const init = lines.find((l) => l.subtype === "init");
      expect(init?.skills).toContain("kbinfra--query-rete");
      expect(init?.agents).toContain("kb-reviewer");
      expect(init?.mcp_servers?.map((m) => m.name).sort()).toEqual([
        "cartographer-homelab-files",
        "cartographer-homelab-grafana",
      ]);
      const hook = lines.find(
        (l) => l.subtype === "hook_response" && l.hook_event === "SessionStart",
      );
      expect(hook?.outcome).toBe("success");
    },
    60_000,
  );
});
