/**
 * Go scenario 03_config_opencode: a server on an empty folder (`--init`), then
 * `cartographer connect opencode --server-url <url>/mcp` with HOME = the sandbox. The OpenCode
 * MCP entry (`type: remote`, `enabled: true`), the bundled kb-create skill, the lockfile naming
 * the provider and the client yaml naming it are written. Deliberate difference (D288,
 * docs/migrating-from-go.md): OpenCode's files live under `~/.config/opencode/`, its documented
 * location, not `~/opencode.json` and `~/.opencode/` as Go writes them.
 */
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanEnv, type RunningServer, runBin, tempDir } from "../helpers.js";
import { startScenarioServer, stopScenario } from "./scenario-server.js";

const sandbox = tempDir("carto-go03-");
const kb = join(sandbox.dir, "kb");
const home = join(sandbox.dir, "sandbox");
let server: RunningServer;

beforeAll(async () => {
  mkdirSync(kb);
  mkdirSync(home);
  server = await startScenarioServer(sandbox, ["--kb", kb, "--init", "--http", "127.0.0.1:0"]);
}, 60_000);
afterAll(() => stopScenario(server, sandbox));

describe("Go scenario 03: connect opencode", () => {
  it("writes the remote entry, the bundled kb-create skill, the lockfile and the client yaml", async () => {
    const r = await runBin(["connect", "opencode", "--server-url", `${server.url}/mcp`], {
      cwd: home,
      env: cleanEnv({ HOME: home }),
    });
    expect(r.code, r.stderr).toBe(0);

    const config = join(home, ".config", "opencode", "opencode.json");
    const entry = JSON.parse(readFileSync(config, "utf8")).mcp.cartographer;
    expect(entry).toMatchObject({ type: "remote", enabled: true });
    expect(entry.url).toBe(`${server.url}/mcp/routed`);
    expect(
      readFileSync(join(home, ".config", "opencode", "skills", "kb-create", "SKILL.md"), "utf8"),
    ).toContain("kb-create");

    const lock = readFileSync(join(home, ".cartographer-sync.lock.json"), "utf8");
    expect(lock).toContain('"opencode"');
    expect(readFileSync(join(home, ".cartographer.yaml"), "utf8")).toContain("opencode");
  }, 60_000);

  it("deliberate difference: nothing at Go's paths (~/opencode.json, ~/.opencode/)", () => {
    expect(existsSync(join(home, "opencode.json"))).toBe(false);
    expect(existsSync(join(home, ".opencode"))).toBe(false);
  });
});
