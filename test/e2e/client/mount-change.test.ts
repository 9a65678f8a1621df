/**
 * A server restarted between the routed shape and an older per-KB one on the same port:
 * status reports the change (exit 1) and never heals it; reconnect heals it with no orphan.
 */
import { parse as parseToml } from "smol-toml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningServer } from "../helpers.js";
import {
  makeKbs,
  portOf,
  type Sandbox,
  sandbox,
  serveKbs,
  startPerKbHealthServer,
} from "./helpers.js";

/** The yaml names $CARTO_TOKEN: status and doctor want it set (this server has no auth). */
const ANY_TOKEN = "any-token-0123456789";

let sb: Sandbox;
let server: RunningServer | undefined;
let older: { close: () => Promise<void> } | undefined;
let port: number;

beforeAll(async () => {
  sb = sandbox();
  await makeKbs(sb.dir, ["a", "b"]);
  server = await serveKbs(sb.dir);
  port = portOf(server.url);
}, 60_000);

afterAll(async () => {
  await older?.close();
  await server?.stop();
  sb?.cleanup();
});

const entries = () =>
  (parseToml(sb.read(".codex/config.toml")) as { mcp_servers: Record<string, { url: string }> })
    .mcp_servers;

describe("a server that changes its mount shape between runs", () => {
  it("routed → per-KB → routed: status reports each change, reconnect heals it", async () => {
    const base = `http://127.0.0.1:${port}`;
    expect((await sb.cli(["connect", "codex", "claude", "--server-url", base])).code).toBe(0);
    expect(Object.keys(entries())).toEqual(["cartographer"]);

    await server?.stop();
    server = undefined;
    older = await startPerKbHealthServer(port, ["a", "b"], "0.1.0");
    const st = await sb.cli(["status"], ANY_TOKEN);
    expect(st.code).toBe(1);
    expect(st.stdout).toContain("mount mode changed: routed → per-kb; run cartographer reconnect");
    expect(Object.keys(entries())).toEqual(["cartographer"]);
    const json = JSON.parse((await sb.cli(["status", "--json"], ANY_TOKEN)).stdout);
    expect(json.state).toBe("drift");
    expect(json.messages).toContain(
      "mount mode changed: routed → per-kb; run cartographer reconnect",
    );

    // reconnect provisions like sync (docs/decisions.md "`reconnect` provisions like `sync`"): this
    // stand-in answers only /health, so the manifests cannot be fetched — the entries are healed,
    // the artifacts left, exit 2.
    const re = await sb.cli(["reconnect"]);
    expect(re.code, re.stderr).toBe(2);
    expect(re.stderr).toContain(
      "artifacts not provisioned (nothing of them was written or removed)",
    );
    expect(entries()).toEqual({
      "cartographer-a": { url: `${base}/mcp/a` },
      "cartographer-b": { url: `${base}/mcp/b` },
    });
    const claude = sb.readJson(".claude.json").mcpServers as Record<string, { url: string }>;
    expect(Object.keys(claude).sort()).toEqual(["cartographer-a", "cartographer-b"]);
    expect(sb.read(".cartographer.yaml")).toMatch(/server_mount_mode: per-kb/);
    // The files match the per-KB shape again; this stand-in only answers /health, so status
    // also says (truthfully) that the agent tools would get 404 from its MCP endpoints.
    const ok = await sb.cli(["status"], ANY_TOKEN);
    expect(ok.stdout).toContain("codex (user): in-sync");
    expect(ok.stdout).toContain("claude (user): in-sync");
    expect(ok.stdout).not.toContain("mount mode changed");
    expect(ok.stdout).toMatch(/not usable: codex, claude: the MCP endpoint .*\/mcp\/a .*HTTP 404/);
    expect(ok.code, ok.stdout).toBe(1);
    expect((await sb.cli(["doctor"], ANY_TOKEN)).code).toBe(0);

    await older.close();
    older = undefined;
    server = await serveKbs(sb.dir, { port });
    const back = await sb.cli(["status"], ANY_TOKEN);
    expect(back.code).toBe(1);
    expect(back.stdout).toContain(
      "mount mode changed: per-kb → routed; run cartographer reconnect",
    );
    expect((await sb.cli(["reconnect"])).code).toBe(0);
    expect(entries()).toEqual({ cartographer: { url: `${base}/mcp/routed` } });
    expect(Object.keys(sb.readJson(".claude.json").mcpServers as object)).toEqual(["cartographer"]);
    expect((await sb.cli(["status"], ANY_TOKEN)).code).toBe(0);
  });
});
