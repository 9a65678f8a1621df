/**
 * What connect and disconnect leave on disk (stand-in server on 127.0.0.1, sandbox $HOME):
 * new files are private and existing modes kept; disconnect leaves no empty file or folder of
 * ours; token_env follows the yaml and the flag; a server with auth on and no token_env is
 * refused with the next step; no write goes through a symlink that leaves $HOME.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { connect, disconnect } from "../../src/client/commands.js";
import { tempDir } from "../support/temp-dir.js";
import {
  type FakeServer,
  INSTRUCTION_FILES,
  PROVIDER_FILES,
  type Sandbox,
  sandbox,
  startFakeServer,
} from "./helpers.js";

let server: FakeServer;
let sb: Sandbox;

beforeEach(async () => {
  server = await startFakeServer({ shape: "routed", kbs: ["alpha"], version: "2.0.0" });
  sb = await sandbox({ CARTO_TOKEN: "s3cret-token-value" });
});
afterEach(async () => {
  await server.close();
  await sb.cleanup();
});

const abs = (rel: string) => path.join(sb.home, rel);
const modeOf = async (rel: string) => (await fs.stat(abs(rel))).mode & 0o777;
const exists = (p: string) =>
  fs.lstat(p).then(
    () => true,
    () => false,
  );

describe("file modes", () => {
  it("a new ~/.claude.json is created 0600; an existing file keeps its mode", async () => {
    expect(await connect(sb.io, { providers: ["claude"], serverUrl: server.url })).toBe(0);
    expect(await modeOf(PROVIDER_FILES.claude)).toBe(0o600);
    await fs.chmod(abs(PROVIDER_FILES.claude), 0o640);
    expect(
      await connect(sb.io, {
        providers: ["claude"],
        tokenEnv: "CARTO_TOKEN",
        serverUrl: server.url,
      }),
    ).toBe(0);
    expect(await fs.readFile(abs(PROVIDER_FILES.claude), "utf8")).toContain("CARTO_TOKEN");
    expect(await modeOf(PROVIDER_FILES.claude)).toBe(0o640);
  });
});

describe("disconnect leaves nothing of ours", () => {
  it("files and folders connect created and that hold nothing else are removed, in both scopes", async () => {
    const project = ["claude", "codex", "opencode", "kiro"];
    expect(
      await connect(sb.io, { providers: project, scope: "project", serverUrl: server.url }),
    ).toBe(0);
    for (const rel of [
      ".mcp.json",
      ".codex/config.toml",
      "opencode.json",
      ".kiro/settings/mcp.json",
    ])
      expect(await exists(path.join(sb.cwd, rel)), rel).toBe(true);
    expect(await disconnect(sb.io, { providers: ["all"] })).toBe(0);
    expect(await fs.readdir(sb.cwd)).toEqual([]);

    expect(await connect(sb.io, { providers: ["opencode", "kiro"], scope: "user" })).toBe(0);
    expect(await disconnect(sb.io, { providers: ["all"] })).toBe(0);
    for (const rel of [".config", ".kiro"]) expect(await exists(abs(rel)), rel).toBe(false);
  });

  it("a symlinked file left bare is written through, not unlinked (its target would keep our entry)", async () => {
    await sb.write("dotfiles/claude.json", "{}\n");
    await fs.symlink(abs("dotfiles/claude.json"), abs(PROVIDER_FILES.claude));
    expect(await connect(sb.io, { providers: ["claude"], serverUrl: server.url })).toBe(0);
    expect(await disconnect(sb.io, { providers: ["claude"] })).toBe(0);
    expect((await fs.lstat(abs(PROVIDER_FILES.claude))).isSymbolicLink()).toBe(true);
    expect(JSON.parse(await sb.read("dotfiles/claude.json"))).toEqual({ mcpServers: {} });
  });

  it("a file that holds anything else is kept without our entries", async () => {
    await sb.write(PROVIDER_FILES.claude, '{\n  "numStartups": 3\n}\n');
    expect(await connect(sb.io, { providers: ["claude"], serverUrl: server.url })).toBe(0);
    expect(await disconnect(sb.io, { providers: ["claude"] })).toBe(0);
    expect(JSON.parse(await sb.read(PROVIDER_FILES.claude))).toEqual({
      numStartups: 3,
      mcpServers: {},
    });
  });
});

describe("token_env follows the yaml and the flag", () => {
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the literal ${VAR} Claude Code expands
  const ours = "Bearer ${CARTO_TOKEN}";
  const claudeEntry = async () =>
    (JSON.parse(await sb.read(PROVIDER_FILES.claude)).mcpServers as Record<string, unknown>)
      .cartographer as { headers?: Record<string, string> };

  it("removing token_env from the yaml removes our Authorization; a hand-written header stays", async () => {
    expect(
      await connect(sb.io, {
        providers: ["claude", "codex", "opencode"],
        tokenEnv: "CARTO_TOKEN",
        serverUrl: server.url,
      }),
    ).toBe(0);
    expect((await claudeEntry()).headers?.Authorization).toBe(ours);
    const yaml = await sb.read(".cartographer.yaml");
    await sb.write(".cartographer.yaml", yaml.replace(/^token_env: .*\n/m, ""));
    sb.io.reset();
    expect(await connect(sb.io, {})).toBe(0);
    expect(sb.io.out()).not.toContain("already in sync");
    expect((await claudeEntry()).headers).toBeUndefined();
    expect(await sb.read(PROVIDER_FILES.codex)).not.toContain("bearer_token_env_var");
    expect(await sb.read(PROVIDER_FILES.opencode)).not.toContain("Authorization");
    // A header that is not in our form is the user's.
    const file = JSON.parse(await sb.read(PROVIDER_FILES.claude));
    file.mcpServers.cartographer.headers = { Authorization: "Basic dXNlcg==" };
    await sb.write(PROVIDER_FILES.claude, JSON.stringify(file, null, 2));
    expect(await connect(sb.io, {})).toBe(0);
    expect((await claudeEntry()).headers?.Authorization).toBe("Basic dXNlcg==");
  });

  it('--token-env "" clears it from the yaml and the entries', async () => {
    expect(
      await connect(sb.io, {
        providers: ["claude"],
        tokenEnv: "CARTO_TOKEN",
        serverUrl: server.url,
      }),
    ).toBe(0);
    expect(await connect(sb.io, { providers: ["claude"], tokenEnv: "" })).toBe(0);
    expect(await sb.read(".cartographer.yaml")).not.toContain("token_env");
    expect((await claudeEntry()).headers).toBeUndefined();
  });

  it("a server with auth on and no token_env: connect refuses with the exact next step and writes nothing", async () => {
    server.state.token = "s3cret-token-value";
    expect(await connect(sb.io, { providers: ["claude", "codex"], serverUrl: server.url })).toBe(2);
    expect(sb.io.err()).toContain(
      "requires a token (HTTP 401) and no token_env is configured; nothing was written. Put the token in an environment variable and pass its NAME: export CARTOGRAPHER_TOKEN=<your token>; cartographer connect claude codex --token-env CARTOGRAPHER_TOKEN",
    );
    expect(sb.io.err()).not.toContain("s3cret-token-value");
    expect(await fs.readdir(sb.home)).toEqual(["project"]);
    // With the variable named, it connects.
    expect(
      await connect(sb.io, {
        providers: ["claude"],
        tokenEnv: "CARTO_TOKEN",
        serverUrl: server.url,
      }),
    ).toBe(0);
  });
});

describe("no write through a symlink that leaves $HOME", () => {
  it("~/.claude linked outside $HOME: CLAUDE.md is refused with a note; a link inside $HOME is written through", async () => {
    const outside = tempDir("carto-outside-");
    try {
      await fs.symlink(outside.dir, abs(".claude"));
      expect(await connect(sb.io, { providers: ["claude"], serverUrl: server.url })).toBe(2);
      expect(sb.io.err()).toMatch(
        /\.claude is a symlink to .*, outside .*; nothing is written through a symlink that leaves your folders/,
      );
      expect(await fs.readdir(outside.dir)).toEqual([]);

      await fs.rm(abs(".claude"));
      await fs.mkdir(abs("dotfiles/claude"), { recursive: true });
      await fs.symlink(abs("dotfiles/claude"), abs(".claude"));
      sb.io.reset();
      expect(await connect(sb.io, { providers: ["claude"], serverUrl: server.url })).toBe(0);
      expect(await sb.read("dotfiles/claude/CLAUDE.md")).toContain("BEGIN cartographer");
      expect((await fs.lstat(abs(".claude"))).isSymbolicLink()).toBe(true);
      expect(INSTRUCTION_FILES.claude).toBe(".claude/CLAUDE.md");
    } finally {
      outside.cleanup();
    }
  });
});

describe("OpenCode's opencode.json keeps its formatting", () => {
  it("connect and disconnect edit only our entry: comments, trailing commas and layout stay byte for byte", async () => {
    const before =
      '{\n  // my settings\n  "$schema": "https://opencode.ai/config.json",\n  "theme": "dark", "model": "x/y",\n  "mcp": {\n    "mine": { "type": "local", "command": ["mine"] }, // keep me\n  },\n}\n';
    await sb.write(PROVIDER_FILES.opencode, before);
    expect(
      await connect(sb.io, {
        providers: ["opencode"],
        tokenEnv: "CARTO_TOKEN",
        serverUrl: server.url,
      }),
    ).toBe(0);
    const written = await sb.read(PROVIDER_FILES.opencode);
    expect(
      written.startsWith(
        '{\n  // my settings\n  "$schema": "https://opencode.ai/config.json",\n  "theme": "dark", "model": "x/y",\n  "mcp": {\n    "mine": { "type": "local", "command": ["mine"] },\n    "cartographer": {\n      "type": "remote",\n',
      ),
      written,
    ).toBe(true);
    expect(written).toContain("{env:CARTO_TOKEN}");
    // A second connect changes nothing; disconnect gives back the exact bytes.
    expect(await connect(sb.io, {})).toBe(0);
    expect(await sb.read(PROVIDER_FILES.opencode)).toBe(written);
    expect(await disconnect(sb.io, { providers: ["opencode"] })).toBe(0);
    expect(await sb.read(PROVIDER_FILES.opencode)).toBe(before);
  });
});
