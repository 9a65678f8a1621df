/**
 * Go scenario 16_prefixed_multikb: a two-KB server whose second KB sets `tool_prefix: zzarb`
 * (Go D102). Deliberate difference (D288, docs/migrating-from-go.md): tools are never prefixed,
 * so `/health` advertises no `tool_prefix`, both KBs answer the bare names and
 * `zzarb__atlas_overview` is an unknown tool; `connect` writes one routed entry for both KBs.
 * As in Go: `status`, `sync` and `reindex` (through the running server, every KB) report no
 * false unreachable/missing diagnostic.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanEnv, GIT_ENV, type RunningServer, runBin, startServer, tempDir } from "../helpers.js";
import { plainCall, textOf } from "./plain-mcp.js";

const sandbox = tempDir("carto-go16-");
const dir = sandbox.dir;
const home = join(dir, "home");
const env = cleanEnv({ ...GIT_ENV, HOME: home });
let server: RunningServer | undefined;

beforeAll(async () => {
  mkdirSync(join(dir, "plainkb"));
  mkdirSync(join(dir, "prefixedkb"));
  mkdirSync(home);
  writeFileSync(
    join(dir, "config.yaml"),
    `http: "127.0.0.1:0"\ninit: true\nkbs:\n  - path: ${join(dir, "plainkb")}\n    name: plainkb\n  - path: ${join(dir, "prefixedkb")}\n    name: prefixedkb\n    tool_prefix: "zzarb"\n`,
  );
  server = await startServer(["--config", "config.yaml"], {
    cwd: dir,
    env: cleanEnv({ ...GIT_ENV, CARTOGRAPHER_AUTH: "false" }),
  });
}, 60_000);
afterAll(async () => {
  await server?.stop();
  sandbox.cleanup();
});

const client = (...args: string[]) => runBin(args, { cwd: home, env });

describe("Go scenario 16_prefixed_multikb", () => {
  it("/health names both KBs and no tool_prefix (deliberate: D288 ignores it, with a warning)", async () => {
    const health = await (await fetch(`${server?.url}/health`)).text();
    expect(health).toContain('"plainkb"');
    expect(health).toContain('"prefixedkb"');
    expect(health).not.toContain("tool_prefix");
    expect(server?.stderr()).toMatch(/tool_prefix/);
  });

  it("both KBs answer the bare tool names; the prefixed name is an unknown tool (deliberate)", async () => {
    for (const kb of ["plainkb", "prefixedkb"]) {
      const r = await plainCall(`${server?.url}/mcp?kb=${kb}`, "atlas_overview", {});
      expect(r.isError, `${kb}: ${textOf(r)}`).toBeFalsy();
    }
    const prefixed = await plainCall(
      `${server?.url}/mcp?kb=prefixedkb`,
      "zzarb__atlas_overview",
      {},
    );
    expect(prefixed.isError).toBe(true);
  });

  it("connect writes one routed entry for both KBs; status, sync and reindex report no false diagnostic", async () => {
    const connect = await client(
      "connect",
      "opencode",
      "--server-url",
      `${server?.url}/mcp`,
      "--auto-trust",
    );
    expect(connect.code, connect.stderr).toBe(0);
    const opencode = readFileSync(join(home, ".config", "opencode", "opencode.json"), "utf8");
    // Deliberate difference (D288): one routed entry reaches both KBs (Go: one entry per KB);
    // the client yaml records which KBs the server has.
    expect(opencode).toContain(`${server?.url}/mcp/routed`);
    const yaml = readFileSync(join(home, ".cartographer.yaml"), "utf8");
    expect(yaml).toContain("plainkb");
    expect(yaml).toContain("prefixedkb");

    const status = await client("status");
    expect(status.stdout + status.stderr).not.toMatch(/server unreachable|mcp-config +missing/);
    const sync = await client("sync");
    expect(sync.code, sync.stderr).toBe(0);
    expect(sync.stdout + sync.stderr).not.toContain("unreachable");
    const reindex = await client("reindex");
    expect(reindex.code, reindex.stderr).toBe(0);
    expect(reindex.stdout + reindex.stderr).not.toMatch(/unreachable|tool not found/);
    expect(reindex.stdout).toMatch(/^plainkb: \{.*\}\nprefixedkb: \{.*\}\n$/);
  }, 120_000);
});
