/**
 * The command names and flags Go users and Go skills type, from the built binary: `version`,
 * `agents`, `--agents a,b`, Go's `approve mcp <name> --kb <kb> [--yes]` and `approve revoke mcp`,
 * `kb clone <url> [name]`; an unknown command names the nearest one (two edits) and exits 2.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { VERSION } from "../../src/version.js";
import { bareRemote, type Remote } from "../support/sync-remote.js";
import { useTempDirs } from "../support/temp-dir.js";
import { cleanEnv, runBin, startServer } from "./helpers.js";

const sandbox = useTempDirs("carto-goparity-");
const shared = useTempDirs("carto-goparity-", "file");

describe("version and unknown commands", () => {
  it("`cartographer version` prints the version, as --version does", async () => {
    const dir = sandbox();
    const r = await runBin(["version"], { cwd: dir });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${VERSION}\n`);
  });

  it("an unknown command names the nearest one within two edits and exits 2", async () => {
    const dir = sandbox();
    const typo = await runBin(["agnets"], { cwd: dir });
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain("unknown command 'agnets'");
    expect(typo.stderr).toContain("(did you mean 'agents'?)");
    const serve = await runBin(["sevre"], { cwd: dir });
    expect(serve.stderr).toContain("(did you mean 'serve'?)");
    const far = await runBin(["xyzzy"], { cwd: dir });
    expect(far.code).toBe(2);
    expect(far.stderr).toContain("unknown command 'xyzzy'");
    expect(far.stderr).not.toContain("did you mean");
  });
});

describe("cartographer agents", () => {
  it("lists each provider as installed (binary on PATH or its folder) and connected (yaml)", async () => {
    const dir = sandbox();
    const home = join(dir, "home");
    const bin = join(dir, "bin");
    mkdirSync(join(home, ".claude"), { recursive: true });
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, "codex"), "#!/bin/sh\n");
    chmodSync(join(bin, "codex"), 0o755);
    writeFileSync(
      join(home, ".cartographer.yaml"),
      "server_url: http://127.0.0.1:1\nserver_name: cartographer\nproviders:\n  - name: kiro\n",
    );
    const env = cleanEnv({ HOME: home, PATH: `${bin}:/usr/bin:/bin` });
    const table = await runBin(["agents"], { cwd: dir, env });
    expect(table.code, table.stderr).toBe(0);
    const row = (p: string) => table.stdout.split("\n").find((l) => l.startsWith(`${p} `));
    expect(row("claude")).toMatch(/^claude\s+yes\s+no\s+.*\.claude$/);
    expect(row("codex")).toMatch(/^codex\s+yes\s+no\s+.*bin\/codex$/);
    expect(row("kiro")).toMatch(/^kiro\s+no\s+yes\s+-$/);
    expect(row("opencode")).toMatch(/^opencode\s+no\s+no\s+-$/);
    const json = await runBin(["agents", "--output", "json"], { cwd: dir, env });
    const rows = JSON.parse(json.stdout).agents as { provider: string; installed: boolean }[];
    expect(rows.filter((r) => r.installed).map((r) => r.provider)).toEqual(["claude", "codex"]);
    const bad = await runBin(["agents", "--output", "xml"], { cwd: dir, env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--output: 'xml' is not a format");
  });
});

describe("Go's client spellings against a running server", () => {
  let dir: string;
  let server: Awaited<ReturnType<typeof startServer>>;
  let home: string;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    dir = shared();
    const kb = join(dir, "kb");
    home = join(dir, "home");
    mkdirSync(home, { recursive: true });
    const created = await runBin(["kb", "create", "kb", "--data", dir], { cwd: dir });
    expect(created.code, created.stderr).toBe(0);
    mkdirSync(join(kb, "mcp"));
    writeFileSync(
      join(kb, "mcp", "wiki-tools.json"),
      '{"type":"http","url":"https://tools.example.com/mcp"}\n',
    );
    writeFileSync(
      join(dir, "server.yaml"),
      `http: "127.0.0.1:0"\nkbs:\n  - path: ${kb}\n    mcp_allowlist:\n      - name: wiki-tools\n        transport: http\n        target: https://tools.example.com/mcp\n`,
    );
    server = await startServer(["--config", join(dir, "server.yaml")], { cwd: dir });
    env = cleanEnv({ HOME: home });
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
  });

  it("connect --agents a,b connects both; disconnect --agents removes one", async () => {
    const url = `${server.url}/mcp`;
    const c = await runBin(["connect", "--agents", "claude,kiro", "--server-url", url], {
      cwd: home,
      env,
    });
    expect(c.code, c.stderr).toBe(0);
    expect(existsSync(join(home, ".claude.json"))).toBe(true);
    expect(existsSync(join(home, ".kiro", "settings", "mcp.json"))).toBe(true);
    const d = await runBin(["disconnect", "--agents", "kiro"], { cwd: home, env });
    expect(d.code, d.stderr).toBe(0);
    const yaml = readFileSync(join(home, ".cartographer.yaml"), "utf8");
    expect(yaml).toContain("claude");
    expect(yaml).not.toMatch(/name: kiro/);
  }, 60_000);

  it("approve mcp <name> --kb <kb> --yes records the approval; approve revoke mcp <name> withdraws it", async () => {
    const approved = await runBin(["approve", "mcp", "wiki-tools", "--kb", "kb", "--yes"], {
      cwd: home,
      env,
    });
    expect(approved.code, approved.stderr).toBe(0);
    const yamlPath = join(home, ".cartographer.yaml");
    expect(readFileSync(yamlPath, "utf8")).toMatch(/kb: kb\n\s+name: wiki-tools/);
    // Without --kb, revoke finds the one KB the name is approved for (as Go).
    const revoked = await runBin(["approve", "revoke", "mcp", "wiki-tools"], { cwd: home, env });
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stdout).toContain("revoked");
    expect(readFileSync(yamlPath, "utf8")).not.toContain("wiki-tools");
    // Ours still works beside Go's.
    const ours = await runBin(["approve", "kb", "wiki-tools"], { cwd: home, env });
    expect(ours.code, ours.stderr).toBe(0);
    expect(readFileSync(yamlPath, "utf8")).toContain("wiki-tools");
    const goRevoke = await runBin(["approve", "revoke", "mcp", "wiki-tools", "--kb", "kb"], {
      cwd: home,
      env,
    });
    expect(goRevoke.code, goRevoke.stderr).toBe(0);
    expect(readFileSync(yamlPath, "utf8")).not.toContain("wiki-tools");
  }, 60_000);

  it("Go's form without --kb is a usage error naming --kb", async () => {
    const r = await runBin(["approve", "mcp", "wiki-tools", "--yes"], { cwd: home, env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("needs --kb <kb>");
    const none = await runBin(["approve", "revoke", "mcp", "nothing-here"], { cwd: home, env });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("not approved for any KB");
  }, 30_000);
});

describe("kb clone <url> [name]", () => {
  let remote: Remote;
  beforeAll(async () => {
    remote = await bareRemote();
  });
  afterAll(async () => {
    await remote?.cleanup();
  });

  it("takes the KB name as Go's positional argument; two different names are refused", async () => {
    const data = join(remote.dir, "d");
    const r = await runBin(["kb", "clone", remote.bare, "team-wiki", "--data", data], {
      cwd: remote.dir,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("cloned KB 'team-wiki'");
    expect(existsSync(join(data, "team-wiki", "data", "index.md"))).toBe(true);
    const both = await runBin(["kb", "clone", remote.bare, "a", "--name", "b", "--data", data], {
      cwd: remote.dir,
    });
    expect(both.code).toBe(2);
    expect(both.stderr).toContain("the name is given twice");
  }, 30_000);
});
