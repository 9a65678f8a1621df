/**
 * Provisioning end to end (built binary, real server, sandbox $HOME): the Go fixture KB's skill
 * reaches every provider; a skill added to the KB is drift until sync; hand edits are kept
 * (exit 1) until --force; a skill deleted from the KB is pruned with its lock entry; an
 * unapproved MCP descriptor is held with the fix; disconnect removes what we wrote.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GO_FIXTURE_KB } from "../../support/fixture.js";
import { useTempDirs } from "../../support/temp-dir.js";
import type { RunningServer } from "../helpers.js";
import {
  cli,
  FIXTURE_SKILL,
  fixtureKb,
  parseWritten,
  readLock,
  SKILL_DIRS,
  serveFixture,
  writeArtifact as writeKbArtifact,
} from "./fixture.js";

const newDir = useTempDirs("carto-prov-e2e-", "file");
let dir: string;
let home: string;
let kb: string;
let server: RunningServer;
const run = (...args: string[]) => cli(home, args);
const FIXTURE_TEXT = readFileSync(join(GO_FIXTURE_KB, "skills", FIXTURE_SKILL, "SKILL.md"), "utf8");
const ADDED = "---\nname: added\ndescription: added while connected\n---\nUse search first.\n";

const writeArtifact = (path: string, content: string) => writeKbArtifact(server.url, path, content);

beforeAll(async () => {
  dir = newDir();
  home = join(dir, "home");
  kb = fixtureKb(dir, { "mcp/tools.json": '{"type":"http","url":"https://tools.example/mcp"}' });
  server = await serveFixture(dir, [
    "allow_artifact_write: true",
    "mcp_allowlist:",
    "  - { name: tools, transport: http, target: https://tools.example/mcp }",
  ]);
  // The yaml consents to the KB's unsigned artifacts (what `cartographer trust homelab` saves).
  mkdirSync(home, { recursive: true });
  writeFileSync(join(home, ".cartographer.yaml"), `server_url: ${server.url}\ntrust: [homelab]\n`);
}, 60_000);

afterAll(async () => {
  await server?.stop();
});

describe("provisioning the fixture KB end to end", () => {
  it("connect all materializes the fixture's skill in every provider, holds the unapproved MCP descriptor, and every written file parses", async () => {
    const res = await run("connect", "all");
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toMatch(
      /held mcp "tools" of KB homelab: .*cartographer approve homelab tools/,
    );
    for (const [provider, rel] of Object.entries(SKILL_DIRS)) {
      const file = join(home, rel, FIXTURE_SKILL, "SKILL.md");
      expect(readFileSync(file, "utf8"), provider).toBe(FIXTURE_TEXT);
      expect(parseWritten(file)).toMatchObject({ name: FIXTURE_SKILL, version: "1.0" });
      // The bundled skills come along (source bundle, no trust needed).
      expect(existsSync(join(home, rel, "kb-create", "SKILL.md")), provider).toBe(true);
    }
    // The MCP descriptor was not approved: no entry for it anywhere.
    const claude = parseWritten(join(home, ".claude.json")) as { mcpServers: object };
    expect(Object.keys(claude.mcpServers)).toEqual(["cartographer"]);

    const lockFile = join(home, ".cartographer-sync.lock.json");
    expect(statSync(lockFile).mode & 0o777).toBe(0o600);
    const lock = readLock(home);
    expect(lock.bindings.map((b) => b.provider).sort()).toEqual(Object.keys(SKILL_DIRS).sort());
    for (const b of lock.bindings) {
      expect(b.revisions.homelab).toMatch(/^[0-9a-f]{64}$/);
      expect(
        b.files.some((f) => f.origin === `homelab/skill/${FIXTURE_SKILL}`),
        b.provider,
      ).toBe(true);
      for (const f of b.files) {
        const bytes = readFileSync(f.path);
        expect(createHash("sha256").update(bytes).digest("hex"), f.path).toBe(f.sha256);
        expect(((statSync(f.path).mode & 0o100) !== 0) === f.executable, f.path).toBe(true);
        expect(() => parseWritten(f.path), f.path).not.toThrow();
      }
      for (const s of b.sections) expect(() => parseWritten(s.file), s.file).not.toThrow();
    }
    const status = await run("status");
    expect(status.code, status.stdout + status.stderr).toBe(0);
  });

  it("a skill added to the KB makes status exit 1 naming it; sync brings it back to 0", async () => {
    await writeArtifact("skills/added/SKILL.md", ADDED);
    const drift = await run("status");
    expect(drift.code, drift.stdout).toBe(1);
    expect(drift.stdout).toMatch(/claude \(user\) artifacts: drift \(KB changed: homelab\)/);
    expect(drift.stdout).toContain("~/.claude/skills/added/SKILL.md: not installed yet");
    const json = JSON.parse((await run("status", "--json")).stdout);
    expect(json.state).toBe("drift");
    expect(json.provisioning.state).toBe("drift");
    expect(existsSync(join(home, ".claude/skills/added"))).toBe(false); // status never writes

    const sync = await run("sync");
    expect(sync.code, sync.stderr).toBe(0);
    for (const rel of Object.values(SKILL_DIRS)) {
      expect(readFileSync(join(home, rel, "added", "SKILL.md"), "utf8")).toBe(ADDED);
    }
    expect((await run("status")).code).toBe(0);
  });

  it("a hand-edited file is kept and reported (exit 1), a deleted one restored; --force overwrites", async () => {
    const edited = join(home, SKILL_DIRS.claude as string, "added", "SKILL.md");
    const deleted = join(home, SKILL_DIRS.kiro as string, "added", "SKILL.md");
    writeFileSync(edited, "my own version\n");
    rmSync(deleted);
    const status = await run("status");
    expect(status.code).toBe(1);
    expect(status.stdout).toContain("~/.claude/skills/added/SKILL.md: edited by hand");
    expect(status.stdout).toContain("~/.kiro/skills/added/SKILL.md: deleted by hand");

    const sync = await run("sync");
    expect(sync.code, sync.stderr).toBe(1);
    expect(sync.stderr).toMatch(/claude: ~\/\.claude\/skills\/added\/SKILL\.md: edited by hand/);
    expect(readFileSync(edited, "utf8")).toBe("my own version\n");
    expect(readFileSync(deleted, "utf8")).toBe(ADDED);

    expect((await run("sync", "--force")).code).toBe(0);
    expect(readFileSync(edited, "utf8")).toBe(ADDED);
    expect((await run("status")).code).toBe(0);
  });

  it("a skill deleted from the KB is pruned with its folder and its lock entries", async () => {
    rmSync(join(kb, "skills", "added"), { recursive: true });
    expect((await run("status")).code).toBe(1);
    const sync = await run("sync");
    expect(sync.code, sync.stderr).toBe(0);
    for (const rel of Object.values(SKILL_DIRS)) {
      expect(existsSync(join(home, rel, "added"))).toBe(false);
      expect(existsSync(join(home, rel, FIXTURE_SKILL, "SKILL.md"))).toBe(true);
    }
    const lock = readLock(home);
    for (const b of lock.bindings) {
      expect(b.files.filter((f) => f.origin.includes("/skill/added"))).toEqual([]);
      expect(b.dirs.filter((d) => d.endsWith("/added"))).toEqual([]);
    }
    expect((await run("status")).code).toBe(0);
  });

  it("--bootstrap-hook adds a SessionStart hook that runs sync (saved); --no-bootstrap-hook removes it", async () => {
    const on = await run("connect", "claude", "--bootstrap-hook");
    expect(on.code, on.stderr).toBe(0);
    expect(readFileSync(join(home, ".cartographer.yaml"), "utf8")).toMatch(/bootstrap_hook: true/);
    const script = join(home, ".claude/hooks/cartographer/_bootstrap.sh");
    expect(statSync(script).mode & 0o777).toBe(0o755);
    expect(readFileSync(script, "utf8")).toMatch(/cartographer sync/);
    const settings = parseWritten(join(home, ".claude/settings.json")) as {
      hooks: { SessionStart: { hooks: { command: string }[] }[] };
    };
    const commands = settings.hooks.SessionStart.flatMap((g) => g.hooks.map((h) => h.command));
    expect(commands.some((c) => c.includes("_bootstrap.sh"))).toBe(true);
    expect((await run("status")).code).toBe(0);

    const off = await run("connect", "claude", "--no-bootstrap-hook");
    expect(off.code, off.stderr).toBe(0);
    expect(existsSync(script)).toBe(false);
    expect(readFileSync(join(home, ".claude/settings.json"), "utf8")).not.toContain("_bootstrap");
    expect(readFileSync(join(home, ".cartographer.yaml"), "utf8")).not.toMatch(/bootstrap_hook/);
  });

  it("an approved MCP descriptor becomes an entry; revoked, the next sync removes only it", async () => {
    const approve = await run("approve", "homelab", "tools");
    expect(approve.code, approve.stderr).toBe(0);
    const sync = await run("sync");
    expect(sync.code, sync.stderr).toBe(0);
    expect(sync.stderr).not.toMatch(/held mcp/);
    const servers = () =>
      (parseWritten(join(home, ".claude.json")) as { mcpServers: Record<string, unknown> })
        .mcpServers;
    expect(servers()["cartographer-homelab-tools"]).toMatchObject({
      type: "http",
      url: "https://tools.example/mcp",
    });
    expect(servers().cartographer).toBeDefined();
    const claudeLock = () => readLock(home).bindings.find((b) => b.provider === "claude");
    expect(claudeLock()?.sections.map((x) => x.id)).toContain("mcp:cartographer-homelab-tools");
    expect((await run("status")).code).toBe(0);

    expect((await run("revoke", "homelab", "tools")).code).toBe(0);
    const again = await run("sync");
    expect(again.code, again.stderr).toBe(0);
    expect(Object.keys(servers())).toEqual(["cartographer"]);
    expect(claudeLock()?.sections.map((x) => x.id)).not.toContain("mcp:cartographer-homelab-tools");
  });

  it("moving a binding to project scope removes its artifacts from the user scope", async () => {
    const project = join(dir, "project");
    mkdirSync(project);
    const res = await cli(home, ["connect", "codex", "--scope", "project"], project);
    expect(res.code, res.stderr).toBe(0);
    expect(existsSync(join(home, SKILL_DIRS.codex as string, FIXTURE_SKILL))).toBe(false);
    const moved = join(project, ".agents", "skills", FIXTURE_SKILL, "SKILL.md");
    expect(readFileSync(moved, "utf8")).toBe(FIXTURE_TEXT);
    const codex = readLock(home).bindings.filter((b) => b.provider === "codex");
    expect(codex.map((b) => [b.scope, b.dir])).toEqual([["project", project]]);
    // Back to user scope: the project keeps nothing of ours.
    expect((await run("connect", "codex", "--scope", "user")).code).toBe(0);
    // A root folder left empty by leaving the old place goes too (the project had none before).
    expect(existsSync(join(project, ".agents"))).toBe(false);
    expect(existsSync(join(project, ".agents", "skills", FIXTURE_SKILL))).toBe(false);
    expect(existsSync(join(home, SKILL_DIRS.codex as string, FIXTURE_SKILL, "SKILL.md"))).toBe(
      true,
    );
  });

  it("disconnect removes every managed file and the provider's lock entry; an edited file stays, named", async () => {
    const edited = join(home, SKILL_DIRS.claude as string, "kb-create", "SKILL.md");
    writeFileSync(edited, "my notes on kb-create\n");
    const res = await run("disconnect", "claude");
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toMatch(
      /~\/\.claude\/skills\/kb-create\/SKILL\.md: edited by hand; kept, no longer managed/,
    );
    expect(readFileSync(edited, "utf8")).toBe("my notes on kb-create\n");
    expect(existsSync(join(home, SKILL_DIRS.claude as string, FIXTURE_SKILL))).toBe(false);
    expect(existsSync(join(home, SKILL_DIRS.claude as string, "kb-import"))).toBe(false);
    const lock = readLock(home);
    expect(lock.bindings.map((b) => b.provider)).not.toContain("claude");
    expect(existsSync(join(home, SKILL_DIRS.codex as string, FIXTURE_SKILL))).toBe(true);
  });
});
