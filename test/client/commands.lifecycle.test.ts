import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { connect, disconnect, doctor, reconnect, status, sync } from "../../src/client/commands.js";
import {
  type FakeServer,
  INSTRUCTION_FILES,
  PROVIDER_FILES,
  type Sandbox,
  sandbox,
  startFakeServer,
} from "./helpers.js";

let server: FakeServer;
let sb: Sandbox;

beforeEach(async () => {
  server = await startFakeServer({ shape: "routed", kbs: ["alpha", "beta"], version: "2.0.0" });
  sb = await sandbox({ CARTO_TOKEN: "tok" });
});
afterEach(async () => {
  await server.close();
  await sb.cleanup();
});

const json = async (rel: string) => JSON.parse(await sb.read(rel));

describe("status", () => {
  it("exits 2 without a yaml, 0 in sync, 1 on drift, 2 when the server is unreachable", async () => {
    expect(await status(sb.io)).toBe(2);
    expect(sb.io.err()).toMatch(/run cartographer connect first/);
    await connect(sb.io, {
      providers: ["claude", "codex"],
      serverUrl: server.url,
      tokenEnv: "CARTO_TOKEN",
    });
    sb.io.reset();
    expect(await status(sb.io)).toBe(0);
    expect(sb.io.out()).toContain("claude (user): in-sync");

    // Drift: the user edits the entry by hand.
    const claude = await json(PROVIDER_FILES.claude);
    claude.mcpServers.cartographer.url = "http://elsewhere/mcp/routed";
    await sb.write(PROVIDER_FILES.claude, JSON.stringify(claude));
    sb.io.reset();
    expect(await status(sb.io, { json: true })).toBe(1);
    const report = JSON.parse(sb.io.out());
    expect(report.state).toBe("drift");
    expect(report.providers[0]).toMatchObject({
      provider: "claude",
      state: "partial",
      stale: ["cartographer"],
    });
    expect(report.providers[1]).toMatchObject({ provider: "codex", state: "in-sync" });

    // sync heals it.
    expect(await sync(sb.io)).toBe(0);
    expect(await status(sb.io)).toBe(0);

    // A server version change is drift, healed by sync.
    server.state.version = "2.1.0";
    sb.io.reset();
    expect(await status(sb.io)).toBe(1);
    expect(sb.io.out()).toContain("server version changed: 2.0.0 → 2.1.0; run cartographer sync");
    expect(await sync(sb.io)).toBe(0);
    expect(await status(sb.io)).toBe(0);

    await server.close();
    sb.io.reset();
    expect(await status(sb.io, { json: true })).toBe(2);
    expect(JSON.parse(sb.io.out()).error.kind).toBe("unreachable");
  });
});

describe("a server restarted in another shape", () => {
  it("routed → per-KB: status reports the mount mode change without healing it; reconnect heals it", async () => {
    await connect(sb.io, { providers: ["claude", "codex", "kiro"], serverUrl: server.url });
    const before = await sb.read(PROVIDER_FILES.claude);
    server.state.shape = "per-kb";
    sb.io.reset();
    expect(await status(sb.io)).toBe(1);
    expect(sb.io.out()).toContain(
      "mount mode changed: routed → per-kb; run cartographer reconnect",
    );
    expect(await sb.read(PROVIDER_FILES.claude)).toBe(before);
    expect(await status(sb.io)).toBe(1);

    expect(await reconnect(sb.io)).toBe(0);
    const claude = await json(PROVIDER_FILES.claude);
    expect(Object.keys(claude.mcpServers)).toEqual(["cartographer-alpha", "cartographer-beta"]);
    expect(await sb.read(PROVIDER_FILES.codex)).not.toContain("[mcp_servers.cartographer]\n");
    sb.io.reset();
    expect(await status(sb.io)).toBe(0);
    expect(await doctor(sb.io)).toBe(0);
  });

  it("per-KB → routed: reconnect leaves no per-KB orphan and keeps unrelated look-alike entries", async () => {
    server.state.shape = "per-kb";
    await sb.write(
      PROVIDER_FILES.kiro,
      JSON.stringify(
        { mcpServers: { "cartographer-notes": { url: "http://other.example/sse" } } },
        null,
        2,
      ),
    );
    await connect(sb.io, { providers: ["kiro"], serverUrl: server.url });
    expect(Object.keys((await json(PROVIDER_FILES.kiro)).mcpServers)).toEqual([
      "cartographer-notes",
      "cartographer-alpha",
      "cartographer-beta",
    ]);
    server.state.shape = "routed";
    sb.io.reset();
    expect(await status(sb.io)).toBe(1);
    expect(sb.io.out()).toContain(
      "mount mode changed: per-kb → routed; run cartographer reconnect",
    );
    expect(await reconnect(sb.io)).toBe(0);
    expect((await json(PROVIDER_FILES.kiro)).mcpServers).toEqual({
      "cartographer-notes": { url: "http://other.example/sse" },
      cartographer: { url: `${server.url}/mcp/routed` },
    });
    expect(await status(sb.io)).toBe(0);
  });

  it("reconnect against an unreachable server exits 2 and touches nothing", async () => {
    await connect(sb.io, { providers: ["claude"], serverUrl: server.url });
    const before = await sb.read(PROVIDER_FILES.claude);
    await server.close();
    expect(await reconnect(sb.io)).toBe(2);
    expect(await sync(sb.io)).toBe(2);
    expect(sb.io.err()).toMatch(/server unreachable.*entries left as they are/);
    expect(await sb.read(PROVIDER_FILES.claude)).toBe(before);
  });
});

describe("doctor (offline)", () => {
  it("reports in-sync, partial and missing from the yaml alone", async () => {
    expect(await doctor(sb.io)).toBe(2);
    server.state.shape = "per-kb";
    await connect(sb.io, { providers: ["claude", "opencode", "kiro"], serverUrl: server.url });
    await server.close(); // doctor never needs the server
    sb.io.reset();
    expect(await doctor(sb.io)).toBe(0);

    const oc = await json(PROVIDER_FILES.opencode);
    delete oc.mcp["cartographer-beta"];
    await sb.write(PROVIDER_FILES.opencode, JSON.stringify(oc));
    await sb.write(PROVIDER_FILES.kiro, "{}\n");
    sb.io.reset();
    expect(await doctor(sb.io, { json: true })).toBe(1);
    const states = Object.fromEntries(
      JSON.parse(sb.io.out()).providers.map((p: { provider: string; state: string }) => [
        p.provider,
        p.state,
      ]),
    );
    expect(states).toEqual({ claude: "in-sync", opencode: "partial", kiro: "missing" });
  });

  it("without a yaml names the missing file and says to run connect; --json prints an object in every outcome", async () => {
    expect(await doctor(sb.io)).toBe(2);
    expect(sb.io.err()).toMatch(/\.cartographer\.yaml does not exist; run cartographer connect/);
    expect(sb.io.err()).not.toMatch(/saved server facts/);
    sb.io.reset();
    expect(await doctor(sb.io, { json: true })).toBe(2);
    expect(JSON.parse(sb.io.out())).toMatchObject({
      state: "error",
      error: { kind: "config", message: expect.stringMatching(/does not exist/) },
    });
    // A yaml that exists but was never connected: a different message, still JSON.
    await sb.write(".cartographer.yaml", "server_url: http://127.0.0.1:1\n");
    sb.io.reset();
    expect(await doctor(sb.io, { json: true })).toBe(2);
    expect(JSON.parse(sb.io.out()).error.message).toMatch(/no saved server facts/);
    // An unparsable yaml: still one JSON object on stdout.
    await sb.write(".cartographer.yaml", "providers: [\n");
    sb.io.reset();
    expect(await doctor(sb.io, { json: true })).toBe(2);
    expect(JSON.parse(sb.io.out()).state).toBe("error");
    // Success carries a state too, like status --json.
    await sb.write(".cartographer.yaml", "");
    await connect(sb.io, { providers: ["claude"], serverUrl: server.url });
    sb.io.reset();
    expect(await doctor(sb.io, { json: true })).toBe(0);
    expect(JSON.parse(sb.io.out())).toMatchObject({
      state: "in-sync",
      providers: [{ state: "in-sync" }],
    });
  });

  it("counts a missing instructions block as partial", async () => {
    await connect(sb.io, { providers: ["codex"], serverUrl: server.url });
    await sb.write(INSTRUCTION_FILES.codex, "# mine\n");
    sb.io.reset();
    expect(await doctor(sb.io)).toBe(1);
    expect(sb.io.out()).toContain("codex (user): partial — no instructions block");
  });
});

describe("disconnect", () => {
  it("with no yaml (or no connected provider) says there is nothing to disconnect, exit 0, writes nothing", async () => {
    expect(await disconnect(sb.io)).toBe(0);
    expect(sb.io.out()).toMatch(/nothing to disconnect: .*\.cartographer\.yaml does not exist/);
    expect(await sb.exists(".cartographer.yaml")).toBe(false);
    await sb.write(".cartographer.yaml", "server_url: http://127.0.0.1:1\nproviders: []\n");
    sb.io.reset();
    expect(await disconnect(sb.io)).toBe(0);
    expect(sb.io.out()).toMatch(/nothing to disconnect: no provider is connected/);
  });

  it("removes entries and blocks of every provider, forgets them in the yaml, and is idempotent", async () => {
    await connect(sb.io, { providers: ["all"], serverUrl: server.url });
    expect(await disconnect(sb.io, { providers: ["all"] })).toBe(0);
    // connect created every file, so with our entries gone nothing is left of them.
    for (const rel of Object.values(PROVIDER_FILES)) expect(await sb.exists(rel), rel).toBe(false);
    for (const rel of Object.values(INSTRUCTION_FILES)) expect(await sb.exists(rel)).toBe(false);
    expect(await sb.read(".cartographer.yaml")).toContain("providers: []");
    expect(await disconnect(sb.io, { providers: ["all"] })).toBe(0);
    for (const rel of Object.values(PROVIDER_FILES)) expect(await sb.exists(rel), rel).toBe(false);
    expect(await status(sb.io)).toBe(0);
  });
});
