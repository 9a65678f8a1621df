/**
 * The dashboard of the BUILT binary in a real terminal (tmux) against a real server, with a
 * sandbox $HOME: Enter connects Claude Code (its file gets the entry, the badge turns in-sync),
 * a removed entry and a deleted skill show as drift, `s` syncs them back, the live tail shows a
 * write, `d` + `y` disconnects, `q` quits with exit 0; NO_COLOR draws without colour; without a
 * terminal `cartographer` prints status. Without tmux it is skipped (the reason printed), except
 * under CI=true, where it fails.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  BIN,
  cleanEnv,
  GIT_ENV,
  type RunningServer,
  runBin,
  startServer,
  tempDir,
} from "./helpers.js";

function tmuxVersion(): string | null {
  try {
    return execFileSync("tmux", ["-V"], { encoding: "utf8" }).trim();
  } catch {
    return null;
  }
}

const TMUX = tmuxVersion();
if (!TMUX) {
  if (process.env.CI === "true")
    throw new Error("tmux is required under CI=true (the dashboard e2e test drives it)");
  process.stderr.write("skipping the dashboard e2e test: tmux is not installed\n");
}

/** A private tmux server (its own socket), so the developer's sessions are never touched. */
const SOCKET = `carto-dash-${process.pid}`;
const tmux = (...args: string[]) =>
  execFileSync("tmux", ["-L", SOCKET, "-f", "/dev/null", ...args], { encoding: "utf8" });

const quote = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;

/** Starts `cartographer dashboard` in a detached session of `columns` × 40; the shell then prints its exit code. */
function startDashboard(
  name: string,
  home: string,
  columns: number,
  env: Record<string, string> = {},
) {
  const vars = Object.entries({
    HOME: home,
    PATH: process.env.PATH ?? "",
    TERM: "xterm-256color",
    ...env,
  })
    .map(([k, v]) => `${k}=${quote(v)}`)
    .join(" ");
  // CI unset: Ink draws only the last frame when it believes it runs in CI.
  const command = `env -u CI -u TMUX ${vars} ${quote(process.execPath)} ${quote(BIN)} dashboard; echo "dashboard exit=$?"; sleep 600`;
  tmux("new-session", "-d", "-s", name, "-x", String(columns), "-y", "40", command);
}

const capture = (name: string, escapes = false) =>
  tmux("capture-pane", "-p", ...(escapes ? ["-e"] : []), "-t", name);

/** Polls the pane until `check` holds; fails with the last screen after `ms`. */
async function screenUntil(
  name: string,
  check: (screen: string) => boolean,
  what: string,
  ms = 30_000,
) {
  const deadline = Date.now() + ms;
  let screen = "";
  while (Date.now() < deadline) {
    screen = capture(name);
    if (check(screen)) return screen;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}; the screen was:\n${screen}`);
}

/**
 * Whether a pane captured with -e sets a foreground colour: an SGR parameter 30–38 or 90–97
 * (39 is tmux's "default colour" reset, written around bold text too).
 */
function coloured(screen: string): boolean {
  return screen
    .split("\u001b[")
    .slice(1)
    .some((chunk) => {
      const params = /^([0-9;]*)m/.exec(chunk)?.[1]?.split(";").map(Number) ?? [];
      return params.some((p) => (p >= 30 && p <= 38) || (p >= 90 && p <= 97));
    });
}

const has =
  (...texts: string[]) =>
  (screen: string) =>
    texts.every((t) => screen.includes(t));
const claudeRow = (screen: string) => screen.split("\n").find((l) => l.includes(" claude ")) ?? "";

describe.skipIf(!TMUX)("the dashboard in a terminal", () => {
  let t: ReturnType<typeof tempDir>;
  let server: RunningServer;
  let home: string;

  beforeAll(async () => {
    t = tempDir("carto-dash-e2e-");
    home = join(t.dir, "home");
    mkdirSync(join(home, ".claude"), { recursive: true });
    const created = await runBin(["kb", "create", "notes", "--data", "kbs"], {
      cwd: t.dir,
      env: cleanEnv(GIT_ENV),
    });
    expect(created.code, created.stderr).toBe(0);
    server = await startServer(["--data", "kbs", "--http", "127.0.0.1:0"], {
      cwd: t.dir,
      env: cleanEnv(GIT_ENV),
    });
    writeFileSync(join(home, ".cartographer.yaml"), `server_url: ${server.url}\n`);
  }, 60_000);

  afterAll(async () => {
    try {
      tmux("kill-server");
    } catch {
      // no session left
    }
    await server?.stop();
    t?.cleanup();
  });

  it("connects with Enter, shows drift, syncs it back with s, tails a write, disconnects after y, quits with q", async () => {
    startDashboard("main", home, 120);
    let screen = await screenUntil(
      "main",
      has("Providers", "⏎ connect", "Recent changes"),
      "the first snapshot",
    );
    expect(claudeRow(screen)).toMatch(/› claude\s+disconnected · detected/);
    expect(screen).toMatch(/notes ok · index \w+/);
    expect(existsSync(join(home, ".claude.json"))).toBe(false);

    tmux("send-keys", "-t", "main", "Enter");
    screen = await screenUntil(
      "main",
      has("connected claude", "mcp-config in-sync", "artifacts in-sync"),
      "connect",
    );
    expect(claudeRow(screen)).toMatch(/claude\s+connected \(user\)/);
    expect(screen).toMatch(/⏎\/s sync · S sync all · d disconnect/);
    const file = join(home, ".claude.json");
    const entry = JSON.parse(readFileSync(file, "utf8")).mcpServers.cartographer;
    expect(entry.url).toBe(`${server.url}/mcp/routed`);

    // Drift: the entry removed by hand and a managed skill deleted.
    const skill = join(home, ".claude", "skills", "kb-import", "SKILL.md");
    expect(existsSync(skill)).toBe(true);
    rmSync(skill);
    writeFileSync(file, JSON.stringify({ mcpServers: {} }));
    tmux("send-keys", "-t", "main", "r");
    screen = await screenUntil("main", has("mcp-config missing", "drift"), "the drift");
    expect(screen).toMatch(/artifacts drift [^\n]*skill 1/);

    tmux("send-keys", "-t", "main", "s");
    screen = await screenUntil(
      "main",
      has("synced claude", "mcp-config in-sync", "artifacts in-sync"),
      "the sync",
    );
    expect(existsSync(skill)).toBe(true);
    expect(JSON.parse(readFileSync(file, "utf8")).mcpServers.cartographer.url).toBe(entry.url);

    // The live tail: a write through the server appears.
    const client = new Client({ name: "e2e", version: "1" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp/routed`)));
    const written = await client.callTool({
      name: "concept_write",
      arguments: {
        id: "ops/deploy-runbook",
        frontmatter: { type: "Note" },
        body: "How we deploy.",
      },
    });
    await client.close();
    expect(written.isError).toBeFalsy();
    await screenUntil("main", has("ops/deploy-runbook"), "the write in the live tail");

    tmux("send-keys", "-t", "main", "d");
    await screenUntil("main", has("Disconnect claude?", "y/N"), "the question");
    tmux("send-keys", "-t", "main", "y");
    screen = await screenUntil("main", has("disconnected claude", "⏎ connect"), "the disconnect");
    expect(claudeRow(screen)).toMatch(/claude\s+disconnected/);
    // Our entry is gone (with nothing else in it, so is the file).
    if (existsSync(file))
      expect(JSON.parse(readFileSync(file, "utf8")).mcpServers?.cartographer).toBeUndefined();
    expect(existsSync(skill)).toBe(false);

    // Colour is on without NO_COLOR (SGR 30–37/90–97 or 256-colour escapes in the pane).
    expect(coloured(capture("main", true))).toBe(true);

    tmux("send-keys", "-t", "main", "q");
    await screenUntil("main", has("dashboard exit=0"), "the dashboard to quit");
  }, 180_000);

  it("draws the 60-column layout without colour under NO_COLOR", async () => {
    startDashboard("plain", home, 60, { NO_COLOR: "1" });
    const screen = await screenUntil("plain", has("Providers", "q quit"), "the first snapshot");
    for (const row of screen.split("\n")) expect([...row].length).toBeLessThanOrEqual(60);
    expect(coloured(capture("plain", true))).toBe(false);
    tmux("send-keys", "-t", "plain", "q");
    await screenUntil("plain", has("dashboard exit=0"), "the dashboard to quit");
  }, 60_000);

  it("without a terminal, `cartographer` and `cartographer dashboard` print status", async () => {
    const env = cleanEnv({ ...GIT_ENV, HOME: home });
    for (const args of [[], ["dashboard"]]) {
      const res = await runBin(args, { cwd: home, env });
      expect(res.stdout).toContain(`server ${server.url}: version`);
      expect(res.stdout).not.toContain("\x1b[");
      expect(res.code).toBe(0);
    }
  }, 60_000);
});
