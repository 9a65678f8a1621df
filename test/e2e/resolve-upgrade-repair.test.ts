/**
 * `cartographer upgrade-repair` through the built binary on a machine the Go client set up: its
 * `.cartographer.yaml` (agents:, auth:, trust: true, mcp_approvals:) and its lockfile, with a
 * real server on 127.0.0.1. --dry-run changes nothing; the run converts the yaml (original kept
 * beside it), moves the Go lockfile aside, and syncs the providers against the local server; a
 * second run has nothing to do. A remote server_url is never synced on this command's initiative.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { makeKbs, type Sandbox, sandbox, serveKbs } from "../client/e2e/helpers.js";
import type { RunningServer } from "./helpers.js";

const HASH = "c".repeat(64);
const GO_LOCK = `${JSON.stringify({
  providers: { claude: { applied_revision: "r1", provider: "claude", managed: [] } },
})}\n`;

let sb: Sandbox;
let server: RunningServer;
let goYaml: string;

const listHome = () => readdirSync(sb.home).sort();

beforeAll(async () => {
  sb = sandbox();
  await makeKbs(sb.dir, ["notes"]);
  server = await serveKbs(sb.dir);
  goYaml = [
    "# written by the Go client",
    `server_url: ${server.url}/mcp`,
    "server_name: cartographer",
    "auth: true",
    "token_env: CARTO_TOKEN",
    "agents:",
    "  - claude",
    "kbs: [notes]",
    "search_roots: [~/src]",
    "mcp_approvals:",
    "  notes:",
    "    web:",
    `      content_hash: ${HASH}`,
    "      approved_at: 2026-01-01T00:00:00Z",
    "",
  ].join("\n");
  sb.write(".cartographer.yaml", goYaml);
  sb.write(".cartographer-sync.lock.json", GO_LOCK);
}, 60_000);

afterAll(async () => {
  await server?.stop();
  sb?.cleanup();
});

describe("cartographer upgrade-repair after a Go client", () => {
  it("before it, the Go yaml is refused with the way out", async () => {
    const res = await sb.cli(["sync"]);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain("run cartographer upgrade-repair to convert it");
  });

  it("--dry-run says what it would do and changes nothing", async () => {
    const before = listHome();
    const res = await sb.cli(["upgrade-repair", "--dry-run"]);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toContain("upgrade-repair (dry run: nothing written):");
    expect(res.stdout).toContain("~/.cartographer.yaml: would convert from the Go client's shape");
    expect(res.stdout).toContain(
      "~/.cartographer-sync.lock.json: would move the Go lockfile aside",
    );
    expect(res.stdout).toContain("providers: would run cartographer sync (claude)");
    expect(sb.read(".cartographer.yaml")).toBe(goYaml);
    expect(sb.read(".cartographer-sync.lock.json")).toBe(GO_LOCK);
    expect(listHome()).toEqual(before);
  });

  it("converts the yaml (original kept), moves the lockfile aside, syncs, and summarises", async () => {
    const res = await sb.cli(["upgrade-repair"], "any-token");
    expect(res.code, res.stdout + res.stderr).toBe(0);
    expect(sb.read(".cartographer.yaml.go")).toBe(goYaml);
    const yaml = parseYaml(sb.read(".cartographer.yaml"));
    expect(yaml).toMatchObject({
      token_env: "CARTO_TOKEN",
      providers: [{ name: "claude", kbs: ["notes"] }],
      search_roots: ["~/src"],
      approvals: [{ kb: "notes", name: "web", content_hash: HASH }],
    });
    expect(yaml).not.toHaveProperty("agents");
    expect(yaml).not.toHaveProperty("trust");
    expect(sb.read(".cartographer-sync.lock.go.json")).toBe(GO_LOCK);
    // The sync wrote the routed entry and a lockfile of ours.
    const claude = sb.readJson(".claude.json") as { mcpServers: Record<string, { url: string }> };
    expect(claude.mcpServers.cartographer?.url).toBe(`${server.url}/mcp/routed?kbs=notes`);
    expect(sb.readJson(".cartographer-sync.lock.json")).toHaveProperty("version", 1);
    expect(res.stdout).toContain(
      "converted from the Go client's shape (original kept as ~/.cartographer.yaml.go)",
    );
    expect(res.stdout).toContain("the Go lockfile moved to ~/.cartographer-sync.lock.go.json");
    expect(res.stdout).toContain("service: no native service installed");
    expect(res.stdout).toContain("providers: synced (claude)");
    expect(res.stdout).toMatch(/note: trust: Go's consent .* cartographer trust <kb>/);
  });

  it("a second run has nothing to convert and syncs again", async () => {
    const res = await sb.cli(["upgrade-repair"], "any-token");
    expect(res.code, res.stdout + res.stderr).toBe(0);
    expect(res.stdout).toContain("~/.cartographer.yaml: already in this client's shape");
    expect(res.stdout).toContain("~/.cartographer-sync.lock.json: current format");
    expect(existsSync(path.join(sb.home, ".cartographer.yaml.go.2"))).toBe(false);
  });

  it("a server_url that is not on this machine is not synced; the run still succeeds", async () => {
    const yaml = sb.read(".cartographer.yaml").replace(server.url, "https://kb.example.org");
    sb.write(".cartographer.yaml", yaml);
    const claudeBefore = readFileSync(path.join(sb.home, ".claude.json"), "utf8");
    const res = await sb.cli(["upgrade-repair"], "any-token");
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toContain(
      "providers: not synced: server_url https://kb.example.org is not a server on this machine",
    );
    expect(sb.read(".claude.json")).toBe(claudeBefore);
  });

  it("a yaml that would not load after conversion is refused, nothing written (exit 2)", async () => {
    const bad = "agents: [claude]\nsearch_roots: [relative]\n";
    sb.write(".cartographer.yaml", bad);
    const res = await sb.cli(["upgrade-repair"]);
    expect(res.code).toBe(2);
    expect(res.stdout).toContain('search_roots[0]: "relative" is relative');
    expect(sb.read(".cartographer.yaml")).toBe(bad);
  });
});
