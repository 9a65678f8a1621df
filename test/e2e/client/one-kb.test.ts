/**
 * One KB, no auth: every client command through the built CLI against the real server, each
 * provider file parsed back and checked field by field, unrelated content kept byte for byte.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { parse as parseToml } from "smol-toml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningServer } from "../helpers.js";
import { makeKbs, managedBlock, type Sandbox, sandbox, serveKbs } from "./helpers.js";

/** The yaml names $CARTO_TOKEN: status and doctor want it set (this server has no auth). */
const ANY_TOKEN = "any-token-0123456789";

const CLAUDE_BEFORE = `${JSON.stringify(
  { numStartups: 3, mcpServers: { other: { type: "stdio", command: "other-mcp" } }, projects: {} },
  null,
  2,
)}\n`;
const CODEX_BEFORE = `# my codex settings
model = "o3"   # keep this comment

[mcp_servers.other]
# another server, not ours
command = "other-mcp"
args = ["--fast"]
`;
const CLAUDE_MD_BEFORE = "# My rules\n\nBe nice.\n";
const PROVIDER_FILES = [
  ".claude.json",
  ".codex/config.toml",
  ".config/opencode/opencode.json",
  ".kiro/settings/mcp.json",
  ".gemini/config/mcp_config.json",
];

let sb: Sandbox;
let server: RunningServer;
let routed: string;

beforeAll(async () => {
  sb = sandbox();
  await makeKbs(sb.dir, ["notes"], { notes: "Cite a source for every claim.\n" });
  server = await serveKbs(sb.dir);
  routed = `${server.url}/mcp/routed`;
  sb.write(".claude.json", CLAUDE_BEFORE);
  sb.write(".codex/config.toml", CODEX_BEFORE);
  sb.write(".claude/CLAUDE.md", CLAUDE_MD_BEFORE);
}, 60_000);

afterAll(async () => {
  await server?.stop();
  sb?.cleanup();
});

const connectArgs = (...providers: string[]) => [
  "connect",
  ...providers,
  "--server-url",
  server.url,
  "--token-env",
  "CARTO_TOKEN",
];

describe("client against a real one-KB server without auth", () => {
  it("connect claude writes one routed entry without ?kbs=, keeps the rest, and is idempotent", async () => {
    const first = await sb.cli(connectArgs("claude"));
    expect(first.code, first.stderr).toBe(0);
    const json = sb.readJson(".claude.json");
    const servers = json.mcpServers as Record<string, unknown>;
    expect(servers.cartographer).toEqual({
      type: "http",
      url: routed,
      headers: { Authorization: `Bearer \${CARTO_TOKEN}` },
    });
    // Everything else is exactly what was there: drop our entry and the bytes match.
    delete servers.cartographer;
    expect(`${JSON.stringify(json, null, 2)}\n`).toBe(CLAUDE_BEFORE);

    const md = sb.read(".claude/CLAUDE.md");
    expect(md.startsWith(CLAUDE_MD_BEFORE)).toBe(true);
    const block = managedBlock(md, "claude") ?? "";
    expect(block).toContain(
      "In Claude Code its tools are named `mcp__cartographer__<tool>`, e.g. `mcp__cartographer__search`.",
    );
    expect(block).toContain("Calls take no `kb` argument");
    expect(block).toMatch(
      /Tools: .*`mcp__cartographer__concept_read`.*`mcp__cartographer__search`/,
    );
    expect(block).not.toMatch(/`notes[_.]search`|notes__/);
    expect(block).toContain("### KB `notes`");
    expect(block).not.toContain("Pass `kb:");
    expect(block).toContain("Root index “notes” (`index_get`); 0 concepts.");
    // The KB is unsigned and not trusted: its instructions.md is held like any KB artifact.
    expect(block).not.toContain("Cite a source for every claim.");
    expect(first.stderr).toContain('held instructions "notes" of KB notes: unsigned');

    const bytes = [sb.read(".claude.json"), md, sb.read(".cartographer.yaml")];
    const again = await sb.cli(connectArgs("claude"));
    expect(again.code).toBe(0);
    expect(again.stdout).toContain("already in sync");
    expect([
      sb.read(".claude.json"),
      sb.read(".claude/CLAUDE.md"),
      sb.read(".cartographer.yaml"),
    ]).toEqual(bytes);
  });

  it("connect all writes every provider's shape; the Codex TOML keeps its comments", async () => {
    const res = await sb.cli(connectArgs("all"));
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toMatch(/Antigravity cannot reference \$CARTO_TOKEN/);

    const codexText = sb.read(".codex/config.toml");
    expect(codexText.startsWith(CODEX_BEFORE)).toBe(true);
    const codex = parseToml(codexText) as { model: string; mcp_servers: Record<string, unknown> };
    expect(codex.model).toBe("o3");
    expect(codex.mcp_servers.other).toEqual({ command: "other-mcp", args: ["--fast"] });
    expect(codex.mcp_servers.cartographer).toEqual({
      url: routed,
      bearer_token_env_var: "CARTO_TOKEN",
    });
    expect(sb.readJson(".config/opencode/opencode.json").mcp).toEqual({
      cartographer: {
        type: "remote",
        url: routed,
        enabled: true,
        headers: { Authorization: "Bearer {env:CARTO_TOKEN}" },
      },
    });
    expect(sb.readJson(".kiro/settings/mcp.json").mcpServers).toEqual({
      cartographer: { url: routed, headers: { Authorization: `Bearer \${CARTO_TOKEN}` } },
    });
    expect(sb.readJson(".gemini/config/mcp_config.json").mcpServers).toEqual({
      cartographer: { serverUrl: routed },
    });
    for (const file of [
      ".codex/AGENTS.md",
      ".config/opencode/AGENTS.md",
      ".kiro/steering/cartographer.md",
      ".gemini/GEMINI.md",
    ]) {
      expect(sb.read(file)).toContain("### KB `notes`");
    }
    const yaml = sb.read(".cartographer.yaml");
    expect(yaml).toMatch(/token_env: CARTO_TOKEN/);
    expect(yaml).toMatch(/server_mount_mode: routed/);
    expect(yaml).toMatch(/server_routed_path: \/mcp\/routed/);

    const bytes = PROVIDER_FILES.map((f) => sb.read(f));
    expect((await sb.cli(connectArgs("all"))).code).toBe(0);
    expect(PROVIDER_FILES.map((f) => sb.read(f))).toEqual(bytes);
  });

  it("sync and status agree with the live server; status --json describes it", async () => {
    const bytes = PROVIDER_FILES.map((f) => sb.read(f));
    expect((await sb.cli(["sync"])).code).toBe(0);
    expect(PROVIDER_FILES.map((f) => sb.read(f))).toEqual(bytes);

    const text = await sb.cli(["status"], ANY_TOKEN);
    expect(text.code, text.stdout + text.stderr).toBe(0);
    expect(text.stdout).toContain("in sync");
    const res = await sb.cli(["status", "--json"], ANY_TOKEN);
    expect(res.code).toBe(0);
    const status = JSON.parse(res.stdout);
    expect(status.state).toBe("in-sync");
    expect(status.server).toMatchObject({
      url: server.url,
      mount_mode: "routed",
      routed_path: "/mcp/routed",
      kbs: ["notes"],
    });
    expect(
      status.providers.map((p: { provider: string; state: string }) => [p.provider, p.state]),
    ).toEqual([
      ["claude", "in-sync"],
      ["codex", "in-sync"],
      ["opencode", "in-sync"],
      ["kiro", "in-sync"],
      ["antigravity", "in-sync"],
    ]);
  });

  it("doctor reports in-sync, then partial (a stale entry), then missing (file gone)", async () => {
    const ok = await sb.cli(["doctor"], ANY_TOKEN);
    expect(ok.code, ok.stdout).toBe(0);
    expect(ok.stdout).toContain("kiro (user): in-sync");

    const kiro = sb.read(".kiro/settings/mcp.json");
    sb.write(".kiro/settings/mcp.json", kiro.replace("/mcp/routed", "/mcp/elsewhere"));
    const partial = await sb.cli(["doctor", "--json"], ANY_TOKEN);
    expect(partial.code).toBe(1);
    const states = JSON.parse(partial.stdout);
    const kiroCheck = (states.providers ?? states).find(
      (p: { provider: string }) => p.provider === "kiro",
    );
    expect(kiroCheck).toMatchObject({ state: "partial", stale: ["cartographer"] });

    sb.write(".kiro/settings/mcp.json", "{}\n");
    const missing = await sb.cli(["doctor"], ANY_TOKEN);
    expect(missing.code).toBe(1);
    expect(missing.stdout).toContain("kiro (user): missing");
    expect((await sb.cli(["status"], ANY_TOKEN)).code).toBe(1);

    // sync heals it.
    expect((await sb.cli(["sync"])).code).toBe(0);
    expect(sb.read(".kiro/settings/mcp.json")).toBe(kiro);
    expect((await sb.cli(["doctor"], ANY_TOKEN)).code).toBe(0);
  });

  it("reconnect rewrites the same bytes; disconnect restores every pre-existing file exactly", async () => {
    const bytes = PROVIDER_FILES.map((f) => sb.read(f));
    expect((await sb.cli(["reconnect"])).code).toBe(0);
    expect(PROVIDER_FILES.map((f) => sb.read(f))).toEqual(bytes);

    const res = await sb.cli(["disconnect", "all"]);
    expect(res.code, res.stderr).toBe(0);
    expect(sb.read(".claude.json")).toBe(CLAUDE_BEFORE);
    expect(sb.read(".codex/config.toml")).toBe(CODEX_BEFORE);
    expect(sb.read(".claude/CLAUDE.md")).toBe(CLAUDE_MD_BEFORE);
    // Kiro's file did not exist before connect: with our entry gone, nothing of it is left.
    expect(existsSync(join(sb.home, ".kiro"))).toBe(false);
    expect((await sb.cli(["disconnect", "all"])).code).toBe(0);
    expect(sb.read(".claude.json")).toBe(CLAUDE_BEFORE);
  });

  it("a stopped server: status and sync exit 2 naming it unreachable; files untouched", async () => {
    expect((await sb.cli(connectArgs("claude"))).code).toBe(0);
    const before = sb.read(".claude.json");
    expect(await server.stop()).toBe(0);
    const st = await sb.cli(["status"], ANY_TOKEN);
    expect(st.code).toBe(2);
    expect(st.stderr).toMatch(
      /server unreachable at http:\/\/127\.0\.0\.1:\d+\/health \(ECONNREFUSED\)/,
    );
    const js = await sb.cli(["status", "--json"], ANY_TOKEN);
    expect(js.code).toBe(2);
    expect(JSON.parse(js.stdout)).toMatchObject({ state: "error", error: { kind: "unreachable" } });
    const sy = await sb.cli(["sync"]);
    expect(sy.code).toBe(2);
    expect(sy.stderr).toMatch(/server unreachable.*entries left as they are/);
    const co = await sb.cli(connectArgs("codex"));
    expect(co.code).toBe(2);
    expect(co.stderr).toMatch(/server unreachable/);
    expect(sb.read(".claude.json")).toBe(before);
  });
});
