/**
 * `cartographer search|read|list|log` through a real server on 127.0.0.1 (dist/, with a bearer
 * token from the env variable the client yaml names) and on KB folders no process holds: the
 * same `--json` answer both ways, aligned output cut to a TTY's width, errors naming the fix.
 */
import { randomBytes } from "node:crypto";
import { cpSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openMcpSession } from "../../../src/client/mcp-session.js";
import { cleanEnv, GIT_ENV, type RunningServer, startServer } from "../../e2e/helpers.js";
import { git, seedKb } from "../../support/kb.js";
import { tempDir } from "../../support/temp-dir.js";
import { runIn } from "./run-in.js";

const concept = (type: string, title: string, body: string) =>
  `---\ntype: ${type}\ntitle: ${title}\n---\n${body}\n`;
const FILES = {
  "data/pub/_map.md": "---\ntype: Map\ntitle: Public\nkind: map\n---\n# Public\n",
  "data/pub/alpha.md": concept(
    "note",
    "Alpha",
    "# Alpha\n\nzebra once, with a long tail of words after the match so that lines run past forty characters.\n\n## Details\n\nalpha details",
  ),
  "data/pub/beta.md": concept("service", "Beta", "beta body mentions zebra too"),
  "data/other/_map.md": "---\ntype: Map\ntitle: Other\nkind: map\n---\n",
  "data/other/gamma.md": concept("note", "Gamma", "nothing striped here"),
};

const sandbox = tempDir("carto-reads-");
const dir = sandbox.dir;
const TOKEN = randomBytes(32).toString("base64url");
let server: RunningServer;
/** A client yaml naming the server, and one naming a port where nothing listens. */
const LIVE = join(dir, "live.yaml");
const DEAD = join(dir, "dead.yaml");

beforeAll(async () => {
  await seedKb(join(dir, "kbs", "notes"), FILES);
  await seedKb(join(dir, "kbs", "papers"));
  mkdirSync(join(dir, "solo"));
  cpSync(join(dir, "kbs", "notes"), join(dir, "solo", "notes"), { recursive: true });
  server = await startServer(["--data", "kbs", "--http", "127.0.0.1:0", "--tokens", TOKEN], {
    cwd: dir,
    env: cleanEnv(GIT_ENV),
  });
  writeFileSync(LIVE, `server_url: ${server.url}/mcp\ntoken_env: READS_TEST_TOKEN\n`);
  writeFileSync(DEAD, "server_url: http://127.0.0.1:9\n");
}, 60_000);
afterAll(async () => {
  await server?.stop();
  sandbox.cleanup();
});

const env = () => ({ READS_TEST_TOKEN: TOKEN, HOME: join(dir, "home") });
const live = (args: string[], tty?: number) => runIn(dir, env(), ["--config", LIVE, ...args], tty);
const local = (args: string[], tty?: number) => runIn(dir, env(), ["--config", DEAD, ...args], tty);

/** The tool's own answer, asked over MCP directly. */
async function toolAnswer(tool: string, args: Record<string, unknown>): Promise<string> {
  const session = await openMcpSession(`${server.url}/mcp/routed?kbs=notes`, {
    Authorization: `Bearer ${TOKEN}`,
  });
  try {
    return await session.callTool(tool, args);
  } finally {
    await session.close();
  }
}

describe("through the running server", () => {
  it("--json prints exactly the tool's answer", async () => {
    const r = await live(["search", "zebra", "--kb", "notes", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`${await toolAnswer("search", { query: "zebra" })}\n`);
    const read = await live(["read", "pub/alpha", "--kb", "notes", "--json"]);
    expect(read.stdout).toBe(`${await toolAnswer("concept_read", { id: "pub/alpha" })}\n`);
  });

  it("search for a person: one aligned row per hit, cut to a TTY's width", async () => {
    const wide = await live(["search", "zebra", "--kb", "notes"]);
    expect(wide.code, wide.stderr).toBe(0);
    const lines = wide.stdout.trimEnd().split("\n");
    expect(lines.map((l) => l.split(/\s+/)[0]).sort()).toEqual(["pub/alpha", "pub/beta"]);
    // The type column starts at the same place on every row.
    expect(new Set(lines.map((l) => l.search(/note|service/))).size).toBe(1);
    expect(wide.stdout).toContain("Alpha — ");
    const narrow = await live(["search", "zebra", "--kb", "notes"], 40);
    for (const line of narrow.stdout.trimEnd().split("\n"))
      expect(Array.from(line).length).toBeLessThanOrEqual(40);
    expect(narrow.stdout).toContain("…");
  });

  it("read prints the header and the body; --section only that part", async () => {
    const r = await live(["read", "pub/alpha", "--kb", "notes"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^pub\/alpha {2}note, map pub {2}Alpha\n\n# Alpha\n/);
    const s = await live(["read", "pub/alpha", "--kb", "notes", "--section", "Details"]);
    expect(s.stdout).toContain("§ Details\n\n## Details\n\nalpha details\n");
  });

  it("list --map and log", async () => {
    const l = await live(["list", "--kb", "notes", "--map", "pub"]);
    expect(l.code, l.stderr).toBe(0);
    expect(l.stdout).toMatch(/^pub\/alpha +note +Alpha\npub\/beta +service +Beta\n$/);
    const g = await live(["log", "--kb", "notes"]);
    expect(g.code, g.stderr).toBe(0);
    expect(g.stdout).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d {2}added {2}other\/gamma {2}fixture$/m);
    const json = JSON.parse((await live(["log", "--kb", "notes", "--json"])).stdout);
    expect(json.changes.map((c: { id: string }) => c.id).sort()).toEqual([
      "other/gamma",
      "pub/alpha",
      "pub/beta",
    ]);
  });

  it("errors name what was wrong: two KBs and no --kb, an unknown KB, a missing concept, no token", async () => {
    const two = await live(["list"]);
    expect(two.code).toBe(2);
    expect(two.stderr).toMatch(/has 2 KBs \(notes, papers\): choose one with --kb NAME/);
    const unknown = await live(["list", "--kb", "nope"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/has no KB 'nope'; KBs: notes, papers/);
    const missing = await live(["read", "pub/nope", "--kb", "notes"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^cartographer: concept_read on notes on http:\S+: /);
    const noToken = await runIn(dir, { HOME: join(dir, "home") }, [
      "--config",
      LIVE,
      "list",
      "--kb",
      "notes",
    ]);
    expect(noToken.code).toBe(1);
    expect(noToken.stderr).toMatch(/401/);
    expect(noToken.stderr + noToken.stdout).not.toContain(TOKEN);
  });

  it("a bad --limit is a usage error; an id the tool refuses is too", async () => {
    const r = await live(["search", "zebra", "--kb", "notes", "--limit", "0"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--limit must be a whole number of 1 or more, got '0'/);
    const bad = await live(["read", "../etc", "--kb", "notes"]);
    expect(bad.code, bad.stderr).toBe(2);
  });

  it("--kb PATH of a folder the server holds goes through the server", async () => {
    const r = await live(["list", "--kb", join("kbs", "notes"), "--json"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`${await toolAnswer("concept_list", {})}\n`);
  });
});

describe("on a KB folder when no server answers", () => {
  it("the data directory's only KB: the same --json answer as the server's", async () => {
    const r = await local(["search", "zebra", "--data", "solo", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`${await toolAnswer("search", { query: "zebra" })}\n`);
    const read = await local(["read", "pub/alpha", "--data", "solo", "--json"]);
    expect(read.stdout).toBe(`${await toolAnswer("concept_read", { id: "pub/alpha" })}\n`);
  });

  it("--kb PATH, and the KB's files and history are left as they were", async () => {
    const root = join(dir, "solo", "notes");
    const state = () => [git(root, ["log", "--format=%H"]), git(root, ["status", "--porcelain"])];
    const before = state();
    const r = await local(["list", "--kb", join("solo", "notes"), "--type", "service"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^pub\/beta +service +Beta\n$/);
    expect(state()).toEqual(before);
  });

  it("a KB folder another process holds, with no server answering: says so and how to fix it", async () => {
    const r = await local(["list", "--kb", join("kbs", "notes")]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /kbs\/notes is held by another process, and no running server answers at http:\/\/127\.0\.0\.1:9 .*: stop that process, or set server_url/,
    );
  });

  it("no KB at all says how to fix it; several and no --kb name the choices", async () => {
    const several = await local(["list", "--data", "kbs-copy-missing"]);
    expect(several.code).toBe(1);
    expect(several.stderr).toMatch(
      /no running server answers at http:\/\/127\.0\.0\.1:9 .*holds no KB folder: start the server, pass --kb PATH/,
    );
    cpSync(join(dir, "solo"), join(dir, "two"), { recursive: true });
    await seedKb(join(dir, "two", "extra"));
    const two = await local(["list", "--data", "two"]);
    expect(two.code).toBe(2);
    expect(two.stderr).toMatch(/has 2 KBs \(extra, notes\): choose one with --kb NAME/);
    const named = await local(["list", "--data", "two", "--kb", "extra", "--json"]);
    expect(named.code, named.stderr).toBe(0);
    expect(JSON.parse(named.stdout)).toMatchObject({ total: 0 });
  });
});
