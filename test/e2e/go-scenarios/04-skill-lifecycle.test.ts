/**
 * Go scenario 04_skill_lifecycle: a KB folder holding a domain skill (`skills/<name>/SKILL.md`,
 * no git yet) served with `--init`; `connect opencode --auto-trust` materializes the skill and
 * records it in the lockfile; after the skill folder is removed from the KB on disk (server
 * unchanged), `sync --auto-trust` prunes it from the client and from the lockfile.
 * Deliberate differences (docs/migrating-from-go.md): OpenCode's skills live under
 * `~/.config/opencode/skills/` (Go: `~/.opencode/skills/`); `--auto-trust` is what lets the
 * unsigned KB skill through (or `cartographer trust <kb>` once).
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanEnv, type RunningServer, runBin, tempDir } from "../helpers.js";
import { startScenarioServer, stopScenario } from "./scenario-server.js";

const SKILL = "kbinfra--query-rete";
const sandbox = tempDir("carto-go04-");
const kb = join(sandbox.dir, "kb");
const home = join(sandbox.dir, "sandbox");
const env = cleanEnv({ HOME: home });
const installed = join(home, ".config", "opencode", "skills", SKILL, "SKILL.md");
const lockfile = join(home, ".cartographer-sync.lock.json");
let server: RunningServer;

beforeAll(async () => {
  mkdirSync(join(kb, "data"), { recursive: true });
  writeFileSync(join(kb, "data", "index.md"), "---\ntype: Index\ntitle: Homelab\n---\n# Homelab\n");
  mkdirSync(join(kb, "skills", SKILL), { recursive: true });
  writeFileSync(
    join(kb, "skills", SKILL, "SKILL.md"),
    `---\nname: ${SKILL}\ndescription: Query the network map of the homelab KB\n---\n# Query rete\nUse search.\n`,
  );
  mkdirSync(home);
  server = await startScenarioServer(sandbox, ["--kb", kb, "--init", "--http", "127.0.0.1:0"]);
}, 60_000);
afterAll(() => stopScenario(server, sandbox));

describe("Go scenario 04: skill materialization and prune", () => {
  it("connect opencode --auto-trust materializes the KB's skill and records it in the lockfile", async () => {
    const r = await runBin(
      ["connect", "opencode", "--server-url", `${server.url}/mcp`, "--auto-trust"],
      { cwd: home, env },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(installed, "utf8")).toContain("# Query rete");
    expect(readFileSync(lockfile, "utf8")).toContain(SKILL);
  }, 60_000);

  it("after the skill leaves the KB, sync --auto-trust prunes it and the lockfile forgets it", async () => {
    rmSync(join(kb, "skills", SKILL), { recursive: true });
    const r = await runBin(["sync", "--auto-trust"], { cwd: home, env });
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(installed)).toBe(false);
    expect(existsSync(lockfile)).toBe(true);
    expect(readFileSync(lockfile, "utf8")).not.toContain(SKILL);
  }, 60_000);
});
