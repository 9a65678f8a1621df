import { promises as fs } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { connect, disconnect, reconnect, status, sync } from "../../src/client/commands.js";
import { ProtocolError } from "../../src/client/errors.js";
import { openMcpSession } from "../../src/client/mcp-session.js";
import {
  type FakeServer,
  PROVIDER_FILES,
  type Sandbox,
  sandbox,
  startFakeServer,
} from "./helpers.js";

let server: FakeServer;
let sb: Sandbox;

beforeEach(async () => {
  server = await startFakeServer({ shape: "routed", kbs: ["alpha"], version: "1.0.0" });
  sb = await sandbox({});
});
afterEach(async () => {
  await server.close();
  await sb.cleanup();
});

const BROKEN_TOML = 'model = "o3"\n[mcp_servers\n';

describe("one provider's bad file fails that provider only", () => {
  it("connect all: the others are written and recorded, the bad file is untouched, exit 2", async () => {
    await sb.write(PROVIDER_FILES.codex, BROKEN_TOML);
    const code = await connect(sb.io, { providers: ["all"], serverUrl: server.url });
    expect(code).toBe(2);
    expect(await sb.read(PROVIDER_FILES.codex)).toBe(BROKEN_TOML);
    expect(sb.io.err()).toMatch(/codex: .*config\.toml is not valid TOML/);
    expect(sb.io.err()).toMatch(/not connected: codex/);
    for (const id of ["claude", "opencode", "kiro", "antigravity"] as const) {
      expect(await sb.exists(PROVIDER_FILES[id])).toBe(true);
    }
    const yaml = parseYaml(await sb.read(".cartographer.yaml"));
    expect(yaml.server_url).toBe(server.url);
    expect(yaml.providers.map((p: { name: string }) => p.name)).toEqual([
      "claude",
      "opencode",
      "kiro",
      "antigravity",
    ]);
  });

  it("reconnect and disconnect leave the bad provider as it is and handle the others", async () => {
    expect(await connect(sb.io, { providers: ["claude", "codex"], serverUrl: server.url })).toBe(0);
    await sb.write(PROVIDER_FILES.codex, BROKEN_TOML);
    expect(await reconnect(sb.io)).toBe(2);
    expect(await sb.read(PROVIDER_FILES.codex)).toBe(BROKEN_TOML);
    expect(JSON.parse(await sb.read(PROVIDER_FILES.claude)).mcpServers.cartographer).toBeDefined();
    expect(await disconnect(sb.io, {})).toBe(2);
    // connect created ~/.claude.json: with our entry gone nothing of it is left.
    expect(await sb.exists(PROVIDER_FILES.claude)).toBe(false);
    const yaml = parseYaml(await sb.read(".cartographer.yaml"));
    expect(yaml.providers.map((p: { name: string }) => p.name)).toEqual(["codex"]);
  });
});

describe("files the user protected", () => {
  it("a read-only provider file is refused, not replaced", async () => {
    const file = path.join(sb.home, PROVIDER_FILES.claude);
    await sb.write(PROVIDER_FILES.claude, '{"a":1}\n');
    await fs.chmod(file, 0o444);
    expect(await connect(sb.io, { providers: ["claude"], serverUrl: server.url })).toBe(2);
    expect(sb.io.err()).toMatch(/\.claude\.json is read-only; nothing was written/);
    expect(await sb.read(PROVIDER_FILES.claude)).toBe('{"a":1}\n');
  });

  it("a symlinked provider file is written through; the link survives", async () => {
    await sb.write("dotfiles/claude.json", '{"a":1}\n');
    await fs.symlink(
      path.join(sb.home, "dotfiles/claude.json"),
      path.join(sb.home, PROVIDER_FILES.claude),
    );
    expect(await connect(sb.io, { providers: ["claude"], serverUrl: server.url })).toBe(0);
    const link = await fs.lstat(path.join(sb.home, PROVIDER_FILES.claude));
    expect(link.isSymbolicLink()).toBe(true);
    const target = JSON.parse(await sb.read("dotfiles/claude.json"));
    expect(target.a).toBe(1);
    expect(target.mcpServers.cartographer.url).toBe(`${server.url}/mcp/routed`);
  });
});

/** A server answering every request with one fixed status, content type and body. */
async function fixedAnswer(status: number, type: string, body: string) {
  const srv = http.createServer((_req, res) => {
    res.writeHead(status, { "content-type": type }).end(body);
  });
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  const { port } = srv.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp/routed`,
    close: () => new Promise<void>((r) => srv.close(() => r())),
  };
}

describe("what a non-MCP endpoint answered is reported in a line", () => {
  it("JSON that is not JSON-RPC is a protocol error naming it, not a dump of its validation", async () => {
    const fake = await fixedAnswer(200, "application/json", '{"hello":"world"}');
    try {
      const err = await openMcpSession(fake.url, {}, undefined, 3000).catch((e) => e);
      expect(err).toBeInstanceOf(ProtocolError);
      expect(err.message).toMatch(/answer to initialize is not an MCP \(JSON-RPC\) message/);
      expect(err.message.length).toBeLessThan(300);
    } finally {
      await fake.close();
    }
  });

  it("a long HTML error page is clipped to one line with its status", async () => {
    const page = `<html><body>${"<p>Internal Server Error</p>\n".repeat(200)}</body></html>`;
    const fake = await fixedAnswer(500, "text/html", page);
    try {
      const err = await openMcpSession(fake.url, {}, undefined, 3000).catch((e) => e);
      expect(err).toBeInstanceOf(ProtocolError);
      expect((err as ProtocolError).status).toBe(500);
      expect(err.message).not.toContain("\n");
      expect(err.message.length).toBeLessThan(400);
    } finally {
      await fake.close();
    }
  });
});

describe("settings the user added to our own entry survive a sync", () => {
  it("Kiro autoApprove, a timeout and an extra header stay; url and Authorization are ours", async () => {
    sb.io.env.CARTO_TOKEN = "t";
    expect(
      await connect(sb.io, { providers: ["kiro"], serverUrl: server.url, tokenEnv: "CARTO_TOKEN" }),
    ).toBe(0);
    const file = JSON.parse(await sb.read(PROVIDER_FILES.kiro));
    const entry = file.mcpServers.cartographer;
    Object.assign(entry, { autoApprove: ["search"], timeout: 60000 });
    entry.headers["X-Team"] = "infra";
    entry.url = "http://127.0.0.1:1/stale";
    await sb.write(PROVIDER_FILES.kiro, JSON.stringify(file, null, 2));
    expect(await sync(sb.io)).toBe(0);
    const after = JSON.parse(await sb.read(PROVIDER_FILES.kiro)).mcpServers.cartographer;
    expect(after).toEqual({
      url: `${server.url}/mcp/routed`,
      autoApprove: ["search"],
      timeout: 60000,
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the literal ${VAR} Kiro expands
      headers: { Authorization: "Bearer ${CARTO_TOKEN}", "X-Team": "infra" },
    });
    const bytes = await sb.read(PROVIDER_FILES.kiro);
    expect(await sync(sb.io)).toBe(0);
    expect(await sb.read(PROVIDER_FILES.kiro)).toBe(bytes);
  });

  it("a local (command) entry under our name is replaced whole, with a warning naming it", async () => {
    await sb.write(
      PROVIDER_FILES.claude,
      JSON.stringify({
        mcpServers: { cartographer: { command: "cartographer", args: ["serve"] } },
      }),
    );
    expect(await connect(sb.io, { providers: ["claude"], serverUrl: server.url })).toBe(0);
    expect(JSON.parse(await sb.read(PROVIDER_FILES.claude)).mcpServers.cartographer).toEqual({
      type: "http",
      url: `${server.url}/mcp/routed`,
    });
    expect(sb.io.err()).toMatch(/replaced entry "cartographer" .*no URL \(a local command\)/);
  });
});

describe("what the user typed is checked as input", () => {
  it("a token pasted as --token-env (our cart_ format) is refused and saved nowhere", async () => {
    const token = "cart_LEz8VqcIu33WrVw5_I12fxS7yJ96Qeyflx2zpg1n6ro";
    const code = await connect(sb.io, {
      providers: ["claude"],
      serverUrl: server.url,
      tokenEnv: token,
    });
    expect(code).toBe(2);
    expect(sb.io.err()).toMatch(/NAME of an environment variable/);
    expect(sb.io.err() + sb.io.out()).not.toContain(token);
    expect(await sb.exists(".cartographer.yaml")).toBe(false);
  });

  it("a server URL without a scheme is a local input error saying how to write it", async () => {
    for (const serverUrl of ["127.0.0.1:39273", "localhost:39273"]) {
      sb.io.reset();
      expect(await connect(sb.io, { providers: ["claude"], serverUrl })).toBe(2);
      expect(sb.io.err()).toMatch(/is not an http\(s\) URL; write it in full, e\.g\. http:\/\//);
      expect(sb.io.err()).not.toMatch(/protocol error|unreachable/);
    }
  });
});

describe("a project-scope binding belongs to its project", () => {
  it("sync, status and disconnect run from another directory act on the project, not the cwd", async () => {
    expect(
      await connect(sb.io, { providers: ["claude"], scope: "project", serverUrl: server.url }),
    ).toBe(0);
    const project = sb.io.cwd;
    const elsewhere = path.join(sb.home, "elsewhere");
    await fs.mkdir(elsewhere);
    sb.io.cwd = elsewhere;
    expect(await sync(sb.io)).toBe(0);
    expect(await fs.readdir(elsewhere)).toEqual([]);
    expect(await status(sb.io)).toBe(0);
    expect(await disconnect(sb.io, {})).toBe(0);
    expect(await fs.readdir(elsewhere)).toEqual([]);
    // The project's .mcp.json held only our entry: it is gone, the project folder stays.
    expect(await fs.readdir(project)).not.toContain(".mcp.json");
  });
});

describe("switching a binding's scope moves it", () => {
  it("project → user → project: connect removes what it owned at the old place before writing the new", async () => {
    const project = sb.io.cwd;
    const inProject = (f: string) => fs.readFile(path.join(project, f), "utf8");
    await sb.write("project/CLAUDE.md", "# project notes\n");
    await sb.write(
      "project/.mcp.json",
      '{"mcpServers":{"other":{"type":"http","url":"http://x/"}}}\n',
    );
    const codexProject = ".codex/config.toml";
    expect(
      await connect(sb.io, {
        providers: ["claude", "codex"],
        scope: "project",
        serverUrl: server.url,
      }),
    ).toBe(0);
    expect(JSON.parse(await inProject(".mcp.json")).mcpServers.cartographer).toBeDefined();

    // To user scope, run from elsewhere: the project's files lose exactly our entries and block.
    sb.io.cwd = sb.home;
    expect(await connect(sb.io, { providers: ["claude", "codex"], scope: "user" })).toBe(0);
    expect(JSON.parse(await inProject(".mcp.json")).mcpServers).toEqual({
      other: { type: "http", url: "http://x/" },
    });
    expect(await inProject("CLAUDE.md")).toBe("# project notes\n");
    // The project's config.toml held only our table: it and its .codex folder are gone.
    await expect(inProject(codexProject)).rejects.toThrow(/ENOENT/);
    expect(JSON.parse(await sb.read(PROVIDER_FILES.claude)).mcpServers.cartographer).toBeDefined();
    expect(await sb.read(PROVIDER_FILES.codex)).toContain("[mcp_servers.cartographer]");
    expect(await status(sb.io)).toBe(0);

    // And back to project scope: the user files lose ours.
    sb.io.cwd = project;
    expect(await connect(sb.io, { providers: ["claude", "codex"], scope: "project" })).toBe(0);
    // Both user files held only ours, so they are gone.
    expect(await sb.exists(PROVIDER_FILES.claude)).toBe(false);
    expect(await sb.exists(PROVIDER_FILES.codex)).toBe(false);
    expect(await sb.exists(".claude/CLAUDE.md")).toBe(false);
    expect(JSON.parse(await inProject(".mcp.json")).mcpServers.cartographer).toBeDefined();

    // Another project directory is another place too.
    const other = path.join(sb.home, "other");
    await fs.mkdir(other);
    sb.io.cwd = other;
    expect(await connect(sb.io, { providers: ["claude"], scope: "project" })).toBe(0);
    expect(JSON.parse(await inProject(".mcp.json")).mcpServers.cartographer).toBeUndefined();
    // Codex reads the project file only once the project is trusted (project-trust.test.ts).
    const codexUser = (await sb.exists(PROVIDER_FILES.codex))
      ? await sb.read(PROVIDER_FILES.codex)
      : "";
    await sb.write(
      PROVIDER_FILES.codex,
      `${codexUser}\n[projects.${JSON.stringify(project)}]\ntrust_level = "trusted"\n`,
    );
    expect(await status(sb.io)).toBe(0);
  });

  it("an old place that cannot be edited fails that provider and keeps its old binding", async () => {
    expect(
      await connect(sb.io, { providers: ["codex"], scope: "project", serverUrl: server.url }),
    ).toBe(0);
    await fs.writeFile(path.join(sb.io.cwd, ".codex/config.toml"), BROKEN_TOML);
    sb.io.reset();
    expect(await connect(sb.io, { providers: ["codex"], scope: "user" })).toBe(2);
    expect(sb.io.err()).toMatch(/codex: .*not valid TOML/);
    expect(await sb.exists(PROVIDER_FILES.codex)).toBe(false);
    const yaml = parseYaml(await sb.read(".cartographer.yaml"));
    expect(yaml.providers[0]).toMatchObject({ name: "codex", scope: "project" });
  });
});

describe("a JSON file that starts with a UTF-8 BOM", () => {
  it("~/.claude.json with a BOM is read, and written back with the BOM and nothing else changed", async () => {
    const body =
      '{\n    "numStartups": 3,\n    "mcpServers": {\n        "other": {\n            "command": "x"\n        }\n    }\n}\n';
    await sb.write(PROVIDER_FILES.claude, `\uFEFF${body}`);
    expect(await connect(sb.io, { providers: ["claude"], serverUrl: server.url })).toBe(0);
    const written = await sb.read(PROVIDER_FILES.claude);
    expect(written.startsWith("\uFEFF")).toBe(true);
    const parsed = JSON.parse(written.slice(1));
    expect(parsed.numStartups).toBe(3);
    expect(parsed.mcpServers.other).toEqual({ command: "x" });
    expect(parsed.mcpServers.cartographer.url).toBe(`${server.url}/mcp/routed`);
    expect(written).toContain('\n    "numStartups": 3,'); // the file's own indentation kept
    expect(await connect(sb.io, {})).toBe(0);
    expect(await sb.read(PROVIDER_FILES.claude)).toBe(written); // idempotent, byte for byte
    expect(await status(sb.io)).toBe(0);
    expect(await disconnect(sb.io)).toBe(0);
    expect(await sb.read(PROVIDER_FILES.claude)).toBe(`\uFEFF${body}`);
  });
});
