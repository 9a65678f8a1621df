/**
 * Go scenario 12_mcp_approval: a KB distributes `mcp/wiki-tools.json`, the server's
 * `mcp_allowlist` allows it. After `connect claude --auto-trust` it is not written (no approval);
 * `approve mcp wiki-tools --kb kb --yes` + `sync` writes it. The descriptor then changes (and the
 * allow-list with it, server restarted): `sync` prints `needs_approval` and removes the entry from
 * `~/.claude.json` and the lockfile; approving again writes the new URL; `approve revoke` + `sync`
 * removes it. The KB folder holds `mcp/` before `--init` makes it a KB.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanEnv, type RunningServer, runBin, startServer, tempDir } from "../helpers.js";

const sandbox = tempDir("carto-go12-");
const kb = join(sandbox.dir, "kb");
const home = join(sandbox.dir, "sandbox");
const config = join(sandbox.dir, "server.yaml");
const env = cleanEnv({ HOME: home });
const claudeJson = join(home, ".claude.json");
const lockfile = join(home, ".cartographer-sync.lock.json");
let server: RunningServer | undefined;
let port = 0;

const text = (file: string) => {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return "";
  }
};

async function serveOffering(url: string): Promise<RunningServer> {
  writeFileSync(join(kb, "mcp", "wiki-tools.json"), `${JSON.stringify({ type: "http", url })}\n`);
  writeFileSync(
    config,
    `http: "127.0.0.1:${port}"\ninit: true\nkbs:\n  - path: ${kb}\n    mcp_allowlist:\n      - name: wiki-tools\n        transport: http\n        target: ${url}\n`,
  );
  const s = await startServer(["--config", config], {
    cwd: sandbox.dir,
    env: cleanEnv({ CARTOGRAPHER_AUTH: "false" }),
  });
  port = Number(new URL(s.url).port);
  return s;
}

const cli = async (args: string[]) => {
  const r = await runBin(args, { cwd: home, env });
  expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(0);
  return r;
};

beforeAll(async () => {
  mkdirSync(join(kb, "mcp"), { recursive: true });
  mkdirSync(home);
  server = await serveOffering("https://tools.example.com/mcp");
}, 60_000);
afterAll(async () => {
  await server?.stop();
  sandbox.cleanup();
});

describe("Go scenario 12_mcp_approval", () => {
  it("not written before approval; approve mcp --kb --yes then sync writes it", async () => {
    const connect = await cli([
      "connect",
      "claude",
      "--server-url",
      `${server?.url}/mcp`,
      "--auto-trust",
    ]);
    expect(text(claudeJson)).not.toContain("wiki-tools");
    expect(connect.stdout).toContain("needs_approval");
    await cli(["approve", "mcp", "wiki-tools", "--kb", "kb", "--yes"]);
    // Deliberate difference (docs/migrating-from-go.md): --auto-trust consents for one run only;
    // Go's plain `sync` writes unsigned KB artifacts, ours waits for `cartographer trust kb` once.
    const untrusted = await cli(["sync"]);
    expect(untrusted.stderr).toMatch(
      /held mcp "wiki-tools" of KB kb: unsigned; run cartographer trust kb/,
    );
    expect(text(claudeJson)).not.toContain("wiki-tools");
    await cli(["trust", "kb"]);
    await cli(["sync"]);
    expect(text(claudeJson)).toContain("wiki-tools");
    expect(text(lockfile)).toContain("wiki-tools");
  }, 90_000);

  it("a changed descriptor: sync says needs_approval and removes the entry until approved again", async () => {
    await server?.stop();
    server = await serveOffering("https://tools.example.com/new");
    const stale = await cli(["sync"]);
    expect(stale.stdout).toContain("needs_approval");
    expect(text(claudeJson)).not.toContain("wiki-tools");
    expect(text(lockfile)).not.toContain("wiki-tools");

    await cli(["approve", "mcp", "wiki-tools", "--kb", "kb", "--yes"]);
    await cli(["sync"]);
    expect(text(claudeJson)).toContain("https://tools.example.com/new");
    expect(text(lockfile)).toContain("wiki-tools");
  }, 90_000);

  it("approve revoke mcp --kb, then sync, removes it from the provider file and the lockfile", async () => {
    await cli(["approve", "revoke", "mcp", "wiki-tools", "--kb", "kb"]);
    await cli(["sync"]);
    expect(text(claudeJson)).not.toContain("wiki-tools");
    expect(text(lockfile)).not.toContain("wiki-tools");
  }, 60_000);
});
