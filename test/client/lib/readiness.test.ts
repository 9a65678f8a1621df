/**
 * Project-scope entries wait for the agent tool: Codex ignores `.codex/config.toml` until the
 * project is trusted in its user config, Claude Code asks to approve `.mcp.json` servers.
 * connect says so, status and doctor detect it (exit 1 for an untrusted Codex project).
 * Real files in a sandbox $HOME, the stand-in server of helpers.ts.
 */
import { execFileSync } from "node:child_process";
import { promises as fs } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { codexProjectTrust, gitRootForTrust } from "../../../src/client/codex-trust.js";
import { connect, doctor, status } from "../../../src/client/commands.js";
import { type FakeServer, type Sandbox, sandbox, startFakeServer } from "../helpers.js";

let server: FakeServer;
let sb: Sandbox;

beforeEach(async () => {
  server = await startFakeServer({ shape: "routed", kbs: ["alpha"] });
  sb = await sandbox({});
});
afterEach(async () => {
  await server.close();
  await sb.cleanup();
});

const trustToml = (dir: string, level = "trusted") =>
  `[projects.${JSON.stringify(dir)}]\ntrust_level = "${level}"\n`;

describe("codexProjectTrust reads the trust Codex gives a project", () => {
  it("untrusted without an entry; trusted by its own directory; 'untrusted' is not trusted", async () => {
    const dir = sb.cwd;
    expect(await codexProjectTrust(dir, sb.home, {})).toMatchObject({
      trusted: false,
      key: dir,
      configFile: path.join(sb.home, ".codex", "config.toml"),
    });
    await sb.write(".codex/config.toml", trustToml(dir, "untrusted"));
    expect(await codexProjectTrust(dir, sb.home, {})).toMatchObject({
      trusted: false,
      level: "untrusted",
    });
    await sb.write(".codex/config.toml", trustToml(dir));
    expect((await codexProjectTrust(dir, sb.home, {})).trusted).toBe(true);
  });

  it("$CODEX_HOME replaces ~/.codex", async () => {
    await sb.write(".codex/config.toml", trustToml(sb.cwd));
    const elsewhere = path.join(sb.home, "codex-home");
    const env = { CODEX_HOME: elsewhere };
    expect(await codexProjectTrust(sb.cwd, sb.home, env)).toMatchObject({
      trusted: false,
      configFile: path.join(elsewhere, "config.toml"),
    });
    await sb.write("codex-home/config.toml", trustToml(sb.cwd));
    expect((await codexProjectTrust(sb.cwd, sb.home, env)).trusted).toBe(true);
  });

  it("inside a git repository the root counts (and is the key to trust); a trusted non-root parent does not", async () => {
    const repo = path.join(sb.home, "repo");
    const sub = path.join(repo, "pkg");
    await fs.mkdir(sub, { recursive: true });
    execFileSync("git", ["init", "-q", repo]);
    expect(await gitRootForTrust(sub)).toBe(repo);
    expect((await codexProjectTrust(sub, sb.home, {})).key).toBe(repo);
    await sb.write(".codex/config.toml", trustToml(repo));
    expect((await codexProjectTrust(sub, sb.home, {})).trusted).toBe(true);

    // Outside any repository only the directory itself counts (checked with codex-cli 0.171.0).
    const outer = path.join(sb.home, "outer");
    const inner = path.join(outer, "inner");
    await fs.mkdir(inner, { recursive: true });
    await sb.write(".codex/config.toml", trustToml(outer));
    expect(await codexProjectTrust(inner, sb.home, {})).toMatchObject({
      trusted: false,
      key: inner,
    });
  });

  it("a linked worktree is keyed by its main checkout", async () => {
    const main = path.join(sb.home, "main");
    const worktree = path.join(sb.home, "wt");
    await fs.mkdir(path.join(main, ".git", "worktrees", "wt"), { recursive: true });
    await fs.mkdir(worktree);
    await fs.writeFile(
      path.join(worktree, ".git"),
      `gitdir: ${path.join(main, ".git", "worktrees", "wt")}\n`,
    );
    expect(await gitRootForTrust(worktree)).toBe(main);
  });

  it("an unparsable user config is reported, never thrown", async () => {
    await sb.write(".codex/config.toml", "[projects\nbroken");
    const trust = await codexProjectTrust(sb.cwd, sb.home, {});
    expect(trust.trusted).toBe(false);
    expect(trust.problem).toMatch(/config\.toml could not be read/);
  });
});

describe("connect, status and doctor on an untrusted Codex project", () => {
  it("connect says how to trust it; status and doctor exit 1 until it is trusted", async () => {
    expect(
      await connect(sb.io, { providers: ["codex"], scope: "project", serverUrl: server.url }),
    ).toBe(0);
    const snippet = `[projects.${JSON.stringify(sb.cwd)}]\n    trust_level = "trusted"`;
    expect(sb.io.err()).toContain(
      "Codex ignores ~/project/.codex/config.toml until the project is trusted; add to ~/.codex/config.toml:",
    );
    expect(sb.io.err()).toContain(snippet);

    sb.io.reset();
    expect(await status(sb.io)).toBe(1);
    expect(sb.io.out()).toContain("codex (project): in-sync");
    expect(sb.io.out()).toContain("not usable: codex (project ~/project): Codex ignores");
    expect(sb.io.out()).toContain(snippet);
    expect(sb.io.out()).toMatch(/files are in sync, but the agent tools cannot use them yet/);

    sb.io.reset();
    expect(await status(sb.io, { json: true })).toBe(1);
    const report = JSON.parse(sb.io.out());
    expect(report.state).toBe("blocked");
    expect(report.blockers[0]).toMatch(/trust_level = "trusted"/);

    sb.io.reset();
    expect(await doctor(sb.io)).toBe(1);
    expect(sb.io.out()).toContain("Codex ignores ~/project/.codex/config.toml");

    await sb.write(".codex/config.toml", trustToml(sb.cwd));
    sb.io.reset();
    expect(await status(sb.io)).toBe(0);
    expect(await doctor(sb.io)).toBe(0);
    sb.io.reset();
    expect(await connect(sb.io, {})).toBe(0);
    expect(sb.io.err()).not.toContain("Codex ignores");
  });
});

describe("Claude Code approval of project servers", () => {
  it("connect names the approval step; pending is a note, a rejected server blocks", async () => {
    expect(
      await connect(sb.io, { providers: ["claude"], scope: "project", serverUrl: server.url }),
    ).toBe(0);
    expect(sb.io.err()).toContain(
      'Claude Code asks to approve "cartographer" from ~/project/.mcp.json the next time it starts there',
    );

    sb.io.reset();
    expect(await status(sb.io)).toBe(0);
    expect(sb.io.out()).toMatch(/note: claude \(project ~\/project\): .*"Pending approval"/);

    await sb.write(
      "project/.claude/settings.local.json",
      JSON.stringify({ enabledMcpjsonServers: ["cartographer"] }),
    );
    sb.io.reset();
    expect(await status(sb.io)).toBe(0);
    expect(sb.io.out()).not.toContain("note:");
    sb.io.reset();
    expect(await connect(sb.io, {})).toBe(0);
    expect(sb.io.err()).not.toContain("Claude Code asks");

    await sb.write(
      "project/.claude/settings.local.json",
      JSON.stringify({ disabledMcpjsonServers: ["cartographer"] }),
    );
    sb.io.reset();
    expect(await status(sb.io)).toBe(1);
    expect(sb.io.out()).toMatch(
      /not usable: claude .*"cartographer" .* was rejected in Claude Code/,
    );
    expect(await doctor(sb.io)).toBe(1);

    // enableAllProjectMcpServers in the user's settings approves every project server.
    await fs.rm(path.join(sb.cwd, ".claude"), { recursive: true });
    await sb.write(".claude/settings.json", JSON.stringify({ enableAllProjectMcpServers: true }));
    sb.io.reset();
    expect(await status(sb.io)).toBe(0);
    expect(sb.io.out()).not.toContain("note:");
  });
});

describe("Codex user files follow $CODEX_HOME", () => {
  it("connect writes $CODEX_HOME/config.toml and AGENTS.md, not ~/.codex; status finds them", async () => {
    const codexDir = path.join(sb.home, "codex-home");
    sb.io.env = { CODEX_HOME: codexDir };
    expect(await connect(sb.io, { providers: ["codex"], serverUrl: server.url })).toBe(0);
    expect(await fs.readFile(path.join(codexDir, "config.toml"), "utf8")).toContain(
      "[mcp_servers.cartographer]",
    );
    expect(await fs.readFile(path.join(codexDir, "AGENTS.md"), "utf8")).toContain(
      "BEGIN cartographer:cartographer (codex)",
    );
    expect(await sb.exists(".codex/config.toml")).toBe(false);
    sb.io.reset();
    expect(await status(sb.io)).toBe(0);
    expect(sb.io.out()).toContain("codex (user): in-sync");
  });
});
