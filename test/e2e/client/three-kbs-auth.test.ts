/**
 * Three KBs with auth (an admin token and one that may only read KB b), the token referenced
 * by env var name: bindings in the URL, `kb` values in the instructions, the token never
 * written, and an SDK client that uses exactly what connect wrote.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { parse as parseToml } from "smol-toml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningServer } from "../helpers.js";
import {
  ADMIN_TOKEN,
  makeKbs,
  managedBlock,
  READER_B_TOKEN,
  type Sandbox,
  sandbox,
  serveKbs,
} from "./helpers.js";

let sb: Sandbox;
let server: RunningServer;
const clients: Client[] = [];

beforeAll(async () => {
  sb = sandbox();
  await makeKbs(sb.dir, ["a", "b", "c"], { b: "KB b: write in English.\n" });
  server = await serveKbs(sb.dir, { auth: true });
}, 60_000);

afterAll(async () => {
  for (const c of clients) await c.close().catch(() => {});
  await server?.stop();
  sb?.cleanup();
});

/** Every file under the sandbox $HOME, for "the token is never written". */
function allFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? allFiles(p) : [p];
  });
}

/** Expands `${VAR}` the way Claude Code does, from the given environment. */
function expand(value: string, env: Record<string, string>): string {
  return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_m, name: string) => env[name] ?? "");
}

async function clientFor(url: string, headers: Record<string, string>): Promise<Client> {
  const client = new Client({ name: "client-e2e", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }),
  );
  clients.push(client);
  return client;
}

const base = () => ["--server-url", server.url, "--token-env", "CARTO_TOKEN"];

describe("client against a real three-KB server with auth", () => {
  it("--kbs b binds one KB (no kb argument); codex bound to all KBs gets no ?kbs= and the kb values", async () => {
    const claude = await sb.cli(["connect", "claude", "--kbs", "b", ...base()], READER_B_TOKEN);
    expect(claude.code, claude.stderr).toBe(0);
    // KB b is unsigned and not trusted: its instructions.md is held (the only line).
    expect(claude.stderr).toMatch(
      /^cartographer warn: held instructions "b" of KB b: unsigned; run cartographer trust b \(or --auto-trust\)\n$/,
    );
    const entry = (sb.readJson(".claude.json").mcpServers as Record<string, unknown>).cartographer;
    expect(entry).toEqual({
      type: "http",
      url: `${server.url}/mcp/routed?kbs=b`,
      headers: { Authorization: `Bearer \${CARTO_TOKEN}` },
    });
    const claudeBlock = managedBlock(sb.read(".claude/CLAUDE.md"), "claude") ?? "";
    expect(claudeBlock).toContain("reaches one knowledge base");
    expect(claudeBlock).toContain("### KB `b`");
    expect(claudeBlock).not.toContain("### KB `a`");
    expect(claudeBlock).not.toContain("Pass `kb:");
    expect(claudeBlock).not.toContain("KB b: write in English.");

    const codex = await sb.cli(["connect", "codex", ...base()], ADMIN_TOKEN);
    expect(codex.code, codex.stderr).toBe(0);
    const toml = parseToml(sb.read(".codex/config.toml")) as {
      mcp_servers: Record<string, Record<string, unknown>>;
    };
    expect(toml.mcp_servers).toEqual({
      cartographer: { url: `${server.url}/mcp/routed`, bearer_token_env_var: "CARTO_TOKEN" },
    });
    const codexBlock = managedBlock(sb.read(".codex/AGENTS.md"), "codex") ?? "";
    expect(codexBlock).toContain(
      "Every call takes a required `kb` argument: one of `a`, `b`, `c`.",
    );
    for (const kb of ["a", "b", "c"]) {
      expect(codexBlock).toContain(`### KB \`${kb}\`\nPass \`kb: "${kb}"\`.`);
    }
    expect(codexBlock).toMatch(
      /Tools: `mcp__cartographer__atlas_overview`, `mcp__cartographer__map_list`/,
    );
    expect(codexBlock).not.toMatch(/`[abc][_.-](atlas_overview|map_list)`/);

    // Both bindings are remembered separately.
    const yaml = sb.read(".cartographer.yaml");
    expect(yaml).toMatch(/name: claude\n\s+kbs:\n\s+- b/);
    expect((await sb.cli(["status"], ADMIN_TOKEN)).code).toBe(0);
  });

  it("--kbs a,b binds two KBs in the URL; a KB the server does not mount is refused", async () => {
    const res = await sb.cli(["connect", "opencode", "--kbs", "a,b", ...base()], ADMIN_TOKEN);
    expect(res.code, res.stderr).toBe(0);
    const mcp = sb.readJson(".config/opencode/opencode.json").mcp as Record<string, unknown>;
    expect(mcp.cartographer).toEqual({
      type: "remote",
      url: `${server.url}/mcp/routed?kbs=a,b`,
      enabled: true,
      headers: { Authorization: "Bearer {env:CARTO_TOKEN}" },
    });
    const block = managedBlock(sb.read(".config/opencode/AGENTS.md"), "opencode") ?? "";
    expect(block).toContain("one of `a`, `b`.");
    expect(block).not.toContain("### KB `c`");

    const before = sb.read(".config/opencode/opencode.json");
    const bad = await sb.cli(["connect", "opencode", "--kbs", "a,zz", ...base()], ADMIN_TOKEN);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/zz/);
    expect(sb.read(".config/opencode/opencode.json")).toBe(before);
  });

  it("never writes a token value anywhere under $HOME", () => {
    for (const file of allFiles(sb.home)) {
      const text = readFileSync(file, "utf8");
      expect(text, file).not.toContain(ADMIN_TOKEN);
      expect(text, file).not.toContain(READER_B_TOKEN);
    }
  });

  it("an SDK client with the written Claude entry (token from env) lists and calls tools on b", async () => {
    const entry = (
      sb.readJson(".claude.json").mcpServers as Record<string, Record<string, unknown>>
    ).cartographer as { url: string; headers: Record<string, string> };
    const env = { CARTO_TOKEN: READER_B_TOKEN };
    const headers = Object.fromEntries(
      Object.entries(entry.headers).map(([k, v]) => [k, expand(v, env)]),
    );
    expect(headers.Authorization).toBe(`Bearer ${READER_B_TOKEN}`);
    const client = await clientFor(entry.url, headers);
    const tools = (await client.listTools()).tools;
    expect(tools.map((t) => t.name)).toContain("map_list");
    expect(tools.find((t) => t.name === "map_list")?.inputSchema.properties).not.toHaveProperty(
      "kb",
    );
    const overview = await client.callTool({ name: "atlas_overview", arguments: {} });
    expect(overview.isError).toBeFalsy();
    const body = JSON.parse((overview.content as Array<{ text: string }>)[0]?.text ?? "");
    expect(body).toMatchObject({ kb: "b", instructions: "KB b: write in English.\n" });

    // The same token on a binding that includes a: b answers, a is refused.
    const wide = await clientFor(`${server.url}/mcp/routed?kbs=a,b`, headers);
    const onB = await wide.callTool({ name: "map_list", arguments: { kb: "b" } });
    expect(onB.isError).toBeFalsy();
    const onA = await wide.callTool({ name: "map_list", arguments: { kb: "a" } });
    expect(onA.isError).toBe(true);
    expect((onA.content as Array<{ text: string }>)[0]?.text).toMatch(/^(forbidden|not found)$/);

    // Without the token the server does not answer MCP at all.
    await expect(clientFor(entry.url, {})).rejects.toThrow(/401|Unauthorized/i);
  });

  it("a token short of the binding: connect writes the entry and words each failure by kind", async () => {
    // a,b: the token reads b only, so a's details are a tool error and b's are there.
    const res = await sb.cli(["connect", "kiro", "--kbs", "a,b", ...base()], READER_B_TOKEN);
    // The entry is written; the KBs' artifacts are not (KB a's manifest is forbidden): exit 2.
    expect(res.code, res.stderr).toBe(2);
    expect(res.stderr).toMatch(/artifacts not provisioned .*artifact_manifest: forbidden/);
    // The KB that answered forbidden is named, with the --kbs that leaves it out.
    expect(res.stderr).toContain(
      "forbidden: the token may not read KB a; bind only the KBs it may read (cartographer connect <provider> --kbs b, leaving a out)",
    );
    const st = await sb.cli(["status"], READER_B_TOKEN);
    expect(st.stdout).toMatch(
      /artifacts: not checked: .*the token may not read KB a; bind only the KBs it may read \(cartographer connect <provider> --kbs /,
    );
    expect(res.stderr).toMatch(/maps of KB a left out: tool error from map_list: forbidden/);
    expect(res.stderr).not.toMatch(/KB b left out/);
    expect(
      (sb.readJson(".kiro/settings/mcp.json").mcpServers as Record<string, unknown>).cartographer,
    ).toEqual({
      url: `${server.url}/mcp/routed?kbs=a,b`,
      headers: { Authorization: `Bearer \${CARTO_TOKEN}` },
    });
    // No manifest (KB a is forbidden), so no instructions.md: they pass the trust gate or not at all.
    expect(sb.read(".kiro/steering/cartographer.md")).not.toContain("KB b: write in English.");

    // a,c: the server refuses the session itself (an MCP error answer, not a protocol error).
    const none = await sb.cli(["connect", "kiro", "--kbs", "a,c", ...base()], READER_B_TOKEN);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(
      /instructions written without KB details: tool error from initialize: .*forbidden/,
    );

    // A token the server does not know: HTTP 401 is a protocol error.
    const bad = await sb.cli(["connect", "kiro", ...base()], "wrong-token-0123456789abcdef");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(
      /instructions written without KB details: protocol error .*\(HTTP 401\)/,
    );
  });

  it("status and doctor tell when the agent tools cannot authenticate: variable unset, token refused", async () => {
    // Unset: both exit 1 naming the variable; status probes nothing more for it.
    const unset = await sb.cli(["status"]);
    expect(unset.code, unset.stdout + unset.stderr).toBe(1);
    expect(unset.stdout).toMatch(
      /not usable: \$CARTO_TOKEN is not set: claude, codex, opencode, kiro read the bearer token from it/,
    );
    const offline = await sb.cli(["doctor", "--json"]);
    expect(offline.code).toBe(1);
    expect(JSON.parse(offline.stdout)).toMatchObject({
      state: "blocked",
      blockers: [expect.stringMatching(/^\$CARTO_TOKEN is not set/)],
    });

    // A token the server does not know: the real server answers 401, status says so.
    const wrong = "wrong-token-e2e-0123456789abcdef";
    const refused = await sb.cli(["status"], wrong);
    expect(refused.code, refused.stdout + refused.stderr).toBe(1);
    expect(refused.stdout).toMatch(
      /not usable: the server refused the token in \$CARTO_TOKEN \(HTTP 401 at http:\/\/127\.0\.0\.1:\d+\/mcp\/routed/,
    );
    const json = JSON.parse((await sb.cli(["status", "--json"], wrong)).stdout);
    expect(json.state).toBe("blocked");
    for (const res of [unset, offline, refused]) {
      expect(res.stdout + res.stderr).not.toContain(wrong);
      expect(res.stdout + res.stderr).not.toContain(ADMIN_TOKEN);
    }
    // doctor never asks the server: with the variable set it has nothing to say about the token.
    expect((await sb.cli(["doctor"], wrong)).code).toBe(0);
    // The right token: sync provisions what the refused tokens could not, then all is in sync.
    expect((await sb.cli(["sync"], ADMIN_TOKEN)).code).toBe(0);
    expect((await sb.cli(["status"], ADMIN_TOKEN)).code).toBe(0);
  });

  it("disconnect one provider leaves the others in place", async () => {
    expect((await sb.cli(["disconnect", "kiro"])).code).toBe(0);
    // connect created Kiro's mcp.json: with our entry gone, nothing of it is left.
    expect(existsSync(join(sb.home, ".kiro/settings/mcp.json"))).toBe(false);
    const doctor = await sb.cli(["doctor"], ADMIN_TOKEN);
    expect(doctor.stdout).toContain("claude (user): in-sync");
    expect(doctor.stdout).not.toContain("kiro");
    expect(doctor.code).toBe(0);
  });
});
