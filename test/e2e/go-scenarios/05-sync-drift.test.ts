/**
 * Go scenario 05_sync_drift: the exit code of `cartographer status` is the oracle (0 in sync,
 * 1 drift, 2 error). After `connect opencode` it is 0; a skill added to the KB on disk makes it
 * 1; `sync --auto-trust` (the new skill is unsigned) brings it back to 0.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanEnv, type RunningServer, runBin, tempDir } from "../helpers.js";
import { startScenarioServer, stopScenario } from "./scenario-server.js";

const sandbox = tempDir("carto-go05-");
const kb = join(sandbox.dir, "kb");
const home = join(sandbox.dir, "sandbox");
const env = cleanEnv({ HOME: home });
let server: RunningServer;

beforeAll(async () => {
  mkdirSync(kb);
  mkdirSync(home);
  server = await startScenarioServer(sandbox, ["--kb", kb, "--init", "--http", "127.0.0.1:0"]);
}, 60_000);
afterAll(() => stopScenario(server, sandbox));

const status = () => runBin(["status"], { cwd: home, env });

describe("Go scenario 05: drift detection", () => {
  it("status exits 0 after connect, 1 after a skill is added to the KB, 0 after sync --auto-trust", async () => {
    const c = await runBin(["connect", "opencode", "--server-url", `${server.url}/mcp`], {
      cwd: home,
      env,
    });
    expect(c.code, c.stderr).toBe(0);
    const inSync = await status();
    expect(inSync.code, inSync.stdout + inSync.stderr).toBe(0);

    mkdirSync(join(kb, "skills", "my-drift-skill"), { recursive: true });
    writeFileSync(
      join(kb, "skills", "my-drift-skill", "SKILL.md"),
      '---\nname: my-drift-skill\ndescription: Test skill for drift detection\nversion: "1.0"\n---\n# My Drift Skill\nTest.\n',
    );
    const drift = await status();
    expect(drift.code, drift.stdout + drift.stderr).toBe(1);

    const s = await runBin(["sync", "--auto-trust"], { cwd: home, env });
    expect(s.code, s.stderr).toBe(0);
    const again = await status();
    expect(again.code, again.stdout + again.stderr).toBe(0);
  }, 120_000);
});
