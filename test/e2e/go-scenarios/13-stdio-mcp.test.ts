/**
 * Go scenario 13_stdio_mcp: a KB distributes a stdio MCP descriptor (`mcp/local-tools.json`: an
 * absolute command, args, env `TOKEN: ${LOCAL_TOKEN}`), allowed by `mcp_allowlist`; the KB folder
 * holds `mcp/` before `--init` makes it a KB. `connect --agents claude,codex,kiro,opencode`,
 * approve, sync: each provider gets it in its own shape, the command is never run and the
 * variable's value never written. A changed descriptor (args) is `needs_approval` and removed
 * until approved again; revoking removes it everywhere.
 * Deliberate differences (docs/migrating-from-go.md): unsigned KB artifacts need
 * `cartographer trust kb` once; Codex gets no descriptor whose env needs `${VAR}` expansion;
 * OpenCode's file is `~/.config/opencode/opencode.json`.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanEnv, type RunningServer, runBin, tempDir } from "../helpers.js";
import { startScenarioServer, stopScenario } from "./scenario-server.js";

const SENTINEL = "D116_LOCAL_SECRET_MUST_NOT_APPEAR";
/** The reference the descriptor carries (written as text, never expanded). */
const TOKEN_REF = ["$", "{LOCAL_TOKEN}"].join("");
const sandbox = tempDir("carto-go13-");
const kb = join(sandbox.dir, "kb");
const home = join(sandbox.dir, "sandbox");
const fake = join(home, "fake-mcp");
const marker = join(home, "executed");
const config = join(sandbox.dir, "server.yaml");
const env = cleanEnv({ HOME: home, LOCAL_TOKEN: SENTINEL });
const files = {
  claude: join(home, ".claude.json"),
  codex: join(home, ".codex", "config.toml"),
  opencode: join(home, ".config", "opencode", "opencode.json"),
  kiro: join(home, ".kiro", "settings", "mcp.json"),
  lock: join(home, ".cartographer-sync.lock.json"),
};
let server: RunningServer | undefined;

const text = (file: string) => (existsSync(file) ? readFileSync(file, "utf8") : "");
const descriptor = (port: number) =>
  writeFileSync(
    join(kb, "mcp", "local-tools.json"),
    `${JSON.stringify({ type: "stdio", command: fake, args: ["serve", "--port", String(port)], env: { TOKEN: TOKEN_REF } })}\n`,
  );
const cli = async (...args: string[]) => {
  const r = await runBin(args, { cwd: home, env });
  expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(0);
  return r;
};

beforeAll(async () => {
  mkdirSync(join(kb, "mcp"), { recursive: true });
  mkdirSync(home);
  writeFileSync(fake, `#!/bin/sh\nprintf launched > ${marker}\n`);
  chmodSync(fake, 0o755);
  descriptor(39273);
  writeFileSync(
    config,
    `http: "127.0.0.1:0"\ninit: true\nkbs:\n  - path: ${kb}\n    mcp_allowlist:\n      - name: local-tools\n        transport: stdio\n        target: ${fake}\n`,
  );
  server = await startScenarioServer(sandbox, ["--config", config]);
}, 60_000);
afterAll(() => stopScenario(server, sandbox));

describe("Go scenario 13_stdio_mcp", () => {
  it("every provider gets the approved stdio descriptor in its shape; nothing runs, no secret is written", async () => {
    const url = `${server?.url}/mcp`;
    await cli("connect", "--agents", "claude,codex,kiro,opencode", "--server-url", url);
    await cli("approve", "mcp", "local-tools", "--kb", "kb", "--yes");
    await cli("trust", "kb"); // deliberate difference: unsigned KB artifacts need trust once
    await cli("sync");

    const claude = JSON.parse(text(files.claude)).mcpServers as Record<
      string,
      Record<string, unknown>
    >;
    const [, entry] = Object.entries(claude).find(([name]) => name.endsWith("local-tools")) ?? [];
    expect(entry).toMatchObject({
      command: fake,
      args: ["serve", "--port", "39273"],
      env: { TOKEN: TOKEN_REF },
    });
    const kiro = text(files.kiro);
    for (const s of [`"command": "${fake}"`, '"39273"', `"TOKEN": "${TOKEN_REF}"`])
      expect(kiro).toContain(s);
    const opencode = text(files.opencode);
    expect(opencode).toContain('"type": "local"');
    expect(opencode).toContain('"{env:LOCAL_TOKEN}"');
    // Deliberate difference: Codex does not expand ${VAR} in env, so it gets no such entry.
    expect(text(files.codex)).not.toContain("local-tools");

    expect(existsSync(marker)).toBe(false);
    for (const f of Object.values(files)) expect(text(f)).not.toContain(SENTINEL);
  }, 120_000);

  it("a changed descriptor is needs_approval and removed; re-approved it is back; revoked it is gone everywhere", async () => {
    descriptor(39274);
    const stale = await cli("sync");
    expect(stale.stdout).toContain("needs_approval");
    expect(text(files.claude)).not.toContain("local-tools");
    expect(text(files.lock)).not.toContain("local-tools");

    await cli("approve", "mcp", "local-tools", "--kb", "kb", "--yes");
    await cli("sync");
    expect(text(files.claude)).toContain('"39274"');

    await cli("approve", "revoke", "mcp", "local-tools", "--kb", "kb");
    await cli("sync");
    for (const f of [files.claude, files.opencode, files.kiro, files.lock])
      expect(text(f)).not.toContain("local-tools");
    expect(text(files.codex)).not.toContain("mcp_servers.local-tools");
    expect(existsSync(marker)).toBe(false);
  }, 120_000);
});
