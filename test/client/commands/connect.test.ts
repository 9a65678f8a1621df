import { promises as fs } from "node:fs";
import path from "node:path";
import { parse as parseToml } from "smol-toml";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { connect, disconnect } from "../../../src/client/commands.js";
import {
  type FakeServer,
  INSTRUCTION_FILES,
  PROVIDER_FILES,
  type Sandbox,
  sandbox,
  startFakeServer,
} from "../helpers.js";

let server: FakeServer;
let sb: Sandbox;

beforeEach(async () => {
  server = await startFakeServer({
    shape: "routed",
    kbs: ["alpha", "beta", "gamma"],
    version: "2.0.0",
  });
  sb = await sandbox({ CARTO_TOKEN: "s3cret-token-value" });
});
afterEach(async () => {
  await server.close();
  await sb.cleanup();
});

// biome-ignore lint/suspicious/noTemplateCurlyInString: the literal ${VAR} Claude Code and Kiro expand
const DOLLAR_REF = "Bearer ${CARTO_TOKEN}";

const json = async (rel: string) => JSON.parse(await sb.read(rel));

describe("connect against a routed server", () => {
  it("writes one entry per provider, pointed at the routed path with the binding, token by reference", async () => {
    const code = await connect(sb.io, {
      providers: ["all"],
      kbs: ["alpha", "beta"],
      serverUrl: `${server.url}/mcp`,
      tokenEnv: "CARTO_TOKEN",
    });
    expect(sb.io.err()).not.toContain("error");
    expect(code).toBe(0);
    const url = `${server.url}/mcp/routed?kbs=alpha,beta`;

    const claude = await json(PROVIDER_FILES.claude);
    expect(Object.keys(claude.mcpServers)).toEqual(["cartographer"]);
    expect(claude.mcpServers.cartographer.type).toBe("http");
    expect(claude.mcpServers.cartographer.url).toBe(url);
    expect(claude.mcpServers.cartographer.headers.Authorization).toBe(DOLLAR_REF);

    const codex = parseToml(await sb.read(PROVIDER_FILES.codex)) as Record<
      string,
      Record<string, Record<string, unknown>>
    >;
    expect(codex.mcp_servers?.cartographer?.url).toBe(url);
    expect(codex.mcp_servers?.cartographer?.bearer_token_env_var).toBe("CARTO_TOKEN");

    const opencode = await json(PROVIDER_FILES.opencode);
    expect(opencode.mcp.cartographer).toEqual({
      type: "remote",
      url,
      enabled: true,
      headers: { Authorization: "Bearer {env:CARTO_TOKEN}" },
    });

    const kiro = await json(PROVIDER_FILES.kiro);
    expect(kiro.mcpServers.cartographer).toEqual({
      url,
      headers: { Authorization: DOLLAR_REF },
    });

    // Antigravity cannot reference an env var: no token unless asked, and a warning says so.
    const ag = await json(PROVIDER_FILES.antigravity);
    expect(ag.mcpServers.cartographer).toEqual({ serverUrl: url });
    expect(sb.io.err()).toMatch(/Antigravity cannot reference \$CARTO_TOKEN/);

    // No token value anywhere on disk or in the output.
    for (const rel of [
      ...Object.values(PROVIDER_FILES),
      ...Object.values(INSTRUCTION_FILES),
      ".cartographer.yaml",
    ]) {
      expect(await sb.read(rel)).not.toContain("s3cret-token-value");
    }
    expect(sb.io.out() + sb.io.err()).not.toContain("s3cret-token-value");
    // No flat-namespace warning against a routed server (D187).
    expect(sb.io.err()).not.toMatch(/flat tool namespace/);

    const yaml = parseYaml(await sb.read(".cartographer.yaml"));
    expect(yaml).toMatchObject({
      server_url: `${server.url}/mcp`,
      server_name: "cartographer",
      token_env: "CARTO_TOKEN",
      server_mount_mode: "routed",
      server_routed_path: "/mcp/routed",
      server_version: "2.0.0",
    });
    expect(yaml.providers).toHaveLength(5);
    expect(yaml.providers[0]).toEqual({ name: "claude", kbs: ["alpha", "beta"] });
  });

  it("omits ?kbs= when the binding is all KBs, and the block needs no kb for a one-KB binding", async () => {
    expect(await connect(sb.io, { providers: ["claude"], serverUrl: server.url })).toBe(0);
    expect((await json(PROVIDER_FILES.claude)).mcpServers.cartographer.url).toBe(
      `${server.url}/mcp/routed`,
    );
    expect(
      await connect(sb.io, { providers: ["kiro"], kbs: ["beta"], serverUrl: server.url }),
    ).toBe(0);
    const block = await sb.read(INSTRUCTION_FILES.kiro);
    expect(block).toContain("Calls take no `kb` argument");
    expect(block).not.toContain("Pass `kb:");
    expect(block).toContain("`beta-top`");
  });

  it("writes an instructions block naming the tools as Claude Code sees them, the kb value and top-level maps; no instructions.md from a server without a manifest", async () => {
    await sb.write(INSTRUCTION_FILES.claude, "# My notes\n\nKeep this.\n");
    expect(
      await connect(sb.io, {
        providers: ["claude"],
        kbs: ["alpha", "gamma"],
        serverUrl: server.url,
      }),
    ).toBe(0);
    const text = await sb.read(INSTRUCTION_FILES.claude);
    expect(
      text.startsWith("# My notes\n\nKeep this.\n\n<!-- BEGIN cartographer:cartographer (claude)"),
    ).toBe(true);
    expect(text).toContain(
      "Tools: `mcp__cartographer__atlas_overview`, `mcp__cartographer__map_list`, `mcp__cartographer__search`.",
    );
    expect(text).toContain('### KB `alpha`\nPass `kb: "alpha"`.');
    expect(text).toContain('### KB `gamma`\nPass `kb: "gamma"`.');
    expect(text).toContain("Top-level maps: `alpha-top`, `shared`.");
    expect(text).not.toContain("alpha-top/child");
    // atlas_overview's instructions are not taken on the server's word: only the trust-gated
    // manifest artifact is, and this older server has no artifact_manifest.
    expect(text).not.toContain("Write in English");
    // Re-running replaces the block; the rest stays.
    expect(await connect(sb.io, { providers: ["claude"], kbs: ["beta"] })).toBe(0);
    const again = await sb.read(INSTRUCTION_FILES.claude);
    expect(again.startsWith("# My notes\n\nKeep this.\n\n")).toBe(true);
    expect(again.match(/BEGIN cartographer/g)).toHaveLength(1);
    expect(again).toContain("### KB `beta`");
    expect(again).not.toContain("### KB `alpha`");
  });

  it("merges into existing files: unrelated entries, keys, indentation and TOML comments survive byte for byte", async () => {
    const claudeBefore =
      '{\n\t"numStartups": 4,\n\t"mcpServers": {\n\t\t"other": {\n\t\t\t"type": "stdio",\n\t\t\t"command": "x"\n\t\t}\n\t},\n\t"zeta": true\n}\n';
    const codexBefore =
      '# my codex config\nmodel = "o3" # inline comment\n\n[mcp_servers.other]\ncommand = "npx"   # keep spacing\nargs = ["-y", "other"]\n\n# trailing comment\n[profiles.fast]\nmodel = "mini"\n';
    await sb.write(PROVIDER_FILES.claude, claudeBefore);
    await sb.write(PROVIDER_FILES.codex, codexBefore);
    expect(
      await connect(sb.io, {
        providers: ["claude", "codex"],
        serverUrl: server.url,
        tokenEnv: "CARTO_TOKEN",
      }),
    ).toBe(0);

    const claudeText = await sb.read(PROVIDER_FILES.claude);
    expect(claudeText).toContain('\n\t"numStartups": 4,');
    const claude = JSON.parse(claudeText);
    expect(Object.keys(claude)).toEqual(["numStartups", "mcpServers", "zeta"]);
    expect(claude.mcpServers.other).toEqual({ type: "stdio", command: "x" });

    const codexText = await sb.read(PROVIDER_FILES.codex);
    expect(codexText.startsWith(codexBefore)).toBe(true);
    expect(codexText.slice(codexBefore.length)).toBe(
      `\n[mcp_servers.cartographer]\nurl = "${server.url}/mcp/routed"\nbearer_token_env_var = "CARTO_TOKEN"\n`,
    );

    // Idempotence: a second connect writes the same bytes everywhere.
    const snapshot = await Promise.all(
      [
        PROVIDER_FILES.claude,
        PROVIDER_FILES.codex,
        INSTRUCTION_FILES.codex,
        ".cartographer.yaml",
      ].map((f) => sb.read(f)),
    );
    expect(await connect(sb.io, { providers: ["claude", "codex"] })).toBe(0);
    const after = await Promise.all(
      [
        PROVIDER_FILES.claude,
        PROVIDER_FILES.codex,
        INSTRUCTION_FILES.codex,
        ".cartographer.yaml",
      ].map((f) => sb.read(f)),
    );
    expect(after).toEqual(snapshot);

    // Disconnect restores the pre-existing files exactly, and is idempotent.
    expect(await disconnect(sb.io, { providers: ["claude", "codex"] })).toBe(0);
    expect(await sb.read(PROVIDER_FILES.codex)).toBe(codexBefore);
    expect(JSON.parse(await sb.read(PROVIDER_FILES.claude))).toEqual(JSON.parse(claudeBefore));
    expect(await sb.exists(INSTRUCTION_FILES.codex)).toBe(false);
    sb.io.reset();
    expect(await disconnect(sb.io, { providers: ["claude", "codex"] })).toBe(0);
    expect(sb.io.out()).toContain("claude: nothing to remove");
    expect(await sb.read(PROVIDER_FILES.codex)).toBe(codexBefore);
  });

  it("writes the Antigravity token only on explicit request, into a 0600 file, and says so", async () => {
    expect(
      await connect(sb.io, {
        providers: ["antigravity"],
        serverUrl: server.url,
        tokenEnv: "CARTO_TOKEN",
        writeToken: true,
      }),
    ).toBe(0);
    const ag = await json(PROVIDER_FILES.antigravity);
    expect(ag.mcpServers.cartographer.headers.Authorization).toBe("Bearer s3cret-token-value");
    const mode = (await fs.stat(path.join(sb.home, PROVIDER_FILES.antigravity))).mode & 0o777;
    expect(mode).toBe(0o600);
    expect(sb.io.out()).toMatch(/token itself is written .* mode 0600/);
    expect(sb.io.out() + sb.io.err()).not.toContain("s3cret-token-value");
  });

  it("writes project-scope files in the project directory", async () => {
    expect(
      await connect(sb.io, {
        providers: ["claude", "codex", "opencode", "kiro"],
        scope: "project",
        serverUrl: server.url,
      }),
    ).toBe(0);
    expect(
      JSON.parse(await fs.readFile(path.join(sb.cwd, ".mcp.json"), "utf8")).mcpServers.cartographer
        .url,
    ).toBe(`${server.url}/mcp/routed`);
    expect(await fs.readFile(path.join(sb.cwd, ".codex/config.toml"), "utf8")).toContain(
      "[mcp_servers.cartographer]",
    );
    expect(
      JSON.parse(await fs.readFile(path.join(sb.cwd, "opencode.json"), "utf8")).mcp.cartographer
        .type,
    ).toBe("remote");
    expect(await fs.readFile(path.join(sb.cwd, ".kiro/settings/mcp.json"), "utf8")).toContain(
      "cartographer",
    );
    // Codex and OpenCode share the project AGENTS.md: one block each.
    const agents = await fs.readFile(path.join(sb.cwd, "AGENTS.md"), "utf8");
    expect(agents).toContain("(codex)");
    expect(agents).toContain("(opencode)");
    expect(await sb.exists(PROVIDER_FILES.claude)).toBe(false);
  });

  it("dry-run writes nothing; unknown KB, unknown provider and a token passed as --token-env are refused", async () => {
    expect(
      await connect(sb.io, { providers: ["claude"], serverUrl: server.url, dryRun: true }),
    ).toBe(0);
    expect(sb.io.out()).toContain("would write");
    expect(await sb.exists(PROVIDER_FILES.claude)).toBe(false);
    expect(await sb.exists(".cartographer.yaml")).toBe(false);
    expect(
      await connect(sb.io, { providers: ["claude"], kbs: ["nope"], serverUrl: server.url }),
    ).toBe(2);
    expect(sb.io.err()).toMatch(/unknown KB "nope"; the server mounts: alpha, beta, gamma/);
    expect(await connect(sb.io, { providers: ["vim"], serverUrl: server.url })).toBe(2);
    expect(
      await connect(sb.io, {
        providers: ["claude"],
        serverUrl: server.url,
        tokenEnv: "Bearer abc.def",
      }),
    ).toBe(2);
    expect(sb.io.err()).toMatch(/NAME of an environment variable/);
    expect(await sb.exists(PROVIDER_FILES.claude)).toBe(false);
  });

  it("refuses to rewrite a provider file that does not parse", async () => {
    await sb.write(PROVIDER_FILES.kiro, "{ not json");
    expect(await connect(sb.io, { providers: ["kiro"], serverUrl: server.url })).toBe(2);
    expect(sb.io.err()).toMatch(/mcp\.json is not valid JSON/);
    expect(await sb.read(PROVIDER_FILES.kiro)).toBe("{ not json");
  });
});

describe("connect against an older per-KB server", () => {
  it("writes one entry per KB and warns about the flat namespace for Kiro and Antigravity", async () => {
    server.state.shape = "per-kb";
    expect(
      await connect(sb.io, { providers: ["all"], kbs: ["alpha", "beta"], serverUrl: server.url }),
    ).toBe(0);
    const kiro = await json(PROVIDER_FILES.kiro);
    expect(kiro.mcpServers).toEqual({
      "cartographer-alpha": { url: `${server.url}/mcp/alpha` },
      "cartographer-beta": { url: `${server.url}/mcp/beta` },
    });
    const codex = parseToml(await sb.read(PROVIDER_FILES.codex)) as Record<
      string,
      Record<string, unknown>
    >;
    expect(Object.keys(codex.mcp_servers ?? {})).toEqual([
      "cartographer-alpha",
      "cartographer-beta",
    ]);
    const warnings = sb.io
      .err()
      .split("\n")
      .filter((l) => l.includes("flat tool namespace"));
    expect(warnings).toHaveLength(2);
    expect(warnings.join("\n")).toMatch(/Kiro/);
    expect(warnings.join("\n")).toMatch(/Antigravity/);
    const block = await sb.read(INSTRUCTION_FILES.claude);
    expect(block).toContain("`cartographer-alpha`, `cartographer-beta`");
    expect(block).not.toContain("Pass `kb:");
    const yaml = parseYaml(await sb.read(".cartographer.yaml"));
    expect(yaml.server_mount_mode).toBe("per-kb");
    expect(yaml.server_routed_path).toBeUndefined();
  });
});

describe("Antigravity's MCP file", () => {
  it("is ~/.gemini/config/mcp_config.json; entries an older connect left in ~/.gemini/antigravity/ are removed, others kept", async () => {
    const legacy = ".gemini/antigravity/mcp_config.json";
    await sb.write(
      legacy,
      JSON.stringify({
        mcpServers: {
          cartographer: { serverUrl: `${server.url}/mcp/routed` },
          mine: { serverUrl: "http://elsewhere/mcp" },
        },
      }),
    );
    expect(await connect(sb.io, { providers: ["antigravity"], serverUrl: server.url })).toBe(0);
    const current = JSON.parse(await sb.read(".gemini/config/mcp_config.json"));
    expect(current.mcpServers.cartographer.serverUrl).toBe(`${server.url}/mcp/routed`);
    expect(JSON.parse(await sb.read(legacy)).mcpServers).toEqual({
      mine: { serverUrl: "http://elsewhere/mcp" },
    });
    await sb.write(
      legacy,
      JSON.stringify({ mcpServers: { cartographer: { serverUrl: `${server.url}/mcp/routed` } } }),
    );
    expect(await disconnect(sb.io)).toBe(0);
    // Nothing but our entry was in it: the file goes (and the folder it leaves empty).
    expect(await sb.exists(legacy)).toBe(false);
    expect(await sb.exists(".gemini/antigravity")).toBe(false);
  });
});
