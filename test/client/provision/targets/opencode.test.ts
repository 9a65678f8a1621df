import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { parseFrontmatter } from "../../../../src/client/provision/targets/frontmatter.js";
import { opencode as opencodeTarget } from "../../../../src/client/provision/targets/opencode.js";
import { useTempDirs } from "../../../support/temp-dir.js";
import { applyResult, checkSectionLaws } from "./apply.js";
import { AGENT, artifact, context, fullSet, MCP_HTTP } from "./artifacts.js";

const sandbox = useTempDirs("carto-tgt-opencode-");

const USER_CONFIG = `${JSON.stringify(
  {
    $schema: "https://opencode.ai/config.json",
    mcp: {
      cartographer: { type: "remote", url: "http://127.0.0.1:39273/mcp/routed", enabled: true },
    },
    theme: "dark",
  },
  null,
  2,
)}\n`;

describe.each(["user", "project"] as const)("OpenCode target, %s scope", (scope) => {
  it("renders skills, subagents, the hooks plugin and mcp entries, parseable back", () => {
    const home = sandbox();
    const proj = sandbox();
    const result = opencodeTarget.render(
      fullSet(),
      context(scope, home, proj, { bootstrapHook: true }),
    );
    const root = scope === "user" ? join(home, ".config", "opencode") : join(proj, ".opencode");
    const config = scope === "user" ? join(root, "opencode.json") : join(proj, "opencode.json");
    expect(result.roots).toEqual(scope === "user" ? [root] : [root, config]);
    applyResult(result);
    expect(existsSync(join(root, "skills", "kbinfra--query-rete", "SKILL.md"))).toBe(true);
    // The fixture's name has a double hyphen, which OpenCode's skill-name rule refuses: said once.
    expect(result.notes).toEqual([
      "OpenCode loads a skill only when its name is lowercase words joined by single hyphens and equals the frontmatter name: homelab/skill/kbinfra--query-rete written but OpenCode may refuse them (rename in the KB)",
    ]);
    const agent = parseFrontmatter(readFileSync(join(root, "agents", "kb-reviewer.md"), "utf8"));
    expect(agent).toEqual({
      data: { description: "Reviews KB concepts for broken links.", mode: "subagent" },
      body: "You review the homelab KB.\nReport broken links.\n",
    });
    expect(statSync(join(root, "cartographer", "hooks", "fmt", "fmt.sh")).mode & 0o111).not.toBe(0);
    expect(existsSync(join(root, "plugins", "cartographer-hooks.js"))).toBe(true);
    const mcp = JSON.parse(readFileSync(config, "utf8")).mcp;
    expect(mcp["cartographer-homelab-grafana"]).toEqual({
      type: "remote",
      url: "https://grafana.example/mcp",
      enabled: true,
      headers: { Authorization: "Bearer {env:GRAFANA_TOKEN}" },
    });
    expect(mcp["cartographer-homelab-files"]).toEqual({
      type: "local",
      command: ["mcp-files", "--root", "/srv"],
      enabled: true,
      environment: { FILES_KEY: "{env:FILES_KEY}" },
    });
  });

  it("mcp sections keep the user's keys and the cartographer entry, and remove exactly ours", () => {
    const home = sandbox();
    const result = opencodeTarget.render(fullSet(), context(scope, home, sandbox()));
    checkSectionLaws(result, () => USER_CONFIG);
    checkSectionLaws(result, () => null);
    const s = result.sections[0];
    const parsed = JSON.parse(s?.write(USER_CONFIG, s.desired) ?? "");
    expect(parsed.theme).toBe("dark");
    expect(parsed.mcp.cartographer.url).toBe("http://127.0.0.1:39273/mcp/routed");
    // OpenCode reads JSONC: comments and layout outside our entry stay byte for byte.
    const jsonc =
      '{\n  // my theme\n  "theme": "dark", "mcp": {\n    "mine": { "type": "remote", "url": "http://x/" }, // keep\n  },\n}\n';
    const written = s?.write(jsonc, s.desired) ?? "";
    expect(
      written.startsWith(
        '{\n  // my theme\n  "theme": "dark", "mcp": {\n    "mine": { "type": "remote", "url": "http://x/" },\n',
      ),
    ).toBe(true);
    expect(written).toContain("// keep\n  },\n}\n");
    expect(s?.read(written)).toBe(s?.desired);
    expect(s?.write(written, null)).toBe(jsonc);
    expect(() => s?.write('{ "mcp": {} ', s.desired)).toThrow(/not valid JSON or JSONC/);
  });
});

describe("OpenCode hooks plugin", () => {
  it("runs the hook command lines on the mapped events (sh -c, args quoted); a PreToolUse exit 2 blocks the tool", async () => {
    const home = sandbox();
    const log = join(sandbox(), "log");
    const hook = (name: string, event: string, script: string, extra = "") =>
      artifact("hook", name, {
        "hook.json": `{"event":"${event}","command":"./run.sh","args":["${log}","$(touch /tmp/never)"]${extra}}`,
        "run.sh": { text: script, exec: true },
      });
    const append = '#!/bin/sh\nprintf "%s %s\\n" "$0" "$2" >> "$1"\ncat >> "$1"\necho >> "$1"\n';
    const block = "#!/bin/sh\necho no edits here >&2\nexit 2\n";
    const result = opencodeTarget.render(
      [
        hook("started", "SessionStart", append),
        hook("guard", "PreToolUse", block, ',"matcher":"Edit|Write"'),
        hook("after", "PostToolUse", append, ',"matcher":"bash"'),
      ],
      context("user", home, home),
    );
    applyResult(result);
    const plugin = join(home, ".config", "opencode", "plugins", "cartographer-hooks.js");
    const mod = (await import(pathToFileURL(plugin).href)) as {
      CartographerHooks: (ctx: {
        directory: string;
      }) => Promise<Record<string, (...a: unknown[]) => Promise<void>>>;
    };
    const hooks = await mod.CartographerHooks({ directory: home });
    await hooks.event?.({ event: { type: "session.created" } });
    await expect(
      hooks["tool.execute.before"]?.({ tool: "edit" }, { args: { filePath: "x" } }),
    ).rejects.toThrow("no edits here");
    await hooks["tool.execute.before"]?.({ tool: "read" }, { args: {} }); // not matched: runs nothing
    await hooks["tool.execute.after"]?.({ tool: "bash" }, { output: "ok" });
    const lines = readFileSync(log, "utf8");
    expect(lines).toContain("started/run.sh $(touch /tmp/never)");
    expect(lines).toContain('"hook_event_name":"SessionStart"');
    expect(lines).toContain('"tool_name":"bash"');
    expect(existsSync("/tmp/never")).toBe(false);
  });
});

describe("OpenCode notes", () => {
  it("drops an agent without description and a hook on an event the plugin cannot hear", () => {
    const home = sandbox();
    const result = opencodeTarget.render(
      [
        AGENT,
        MCP_HTTP,
        artifact("agent", "nodesc", { "nodesc.md": "---\nname: nodesc\n---\nBody\n" }),
        artifact("hook", "bye", {
          "hook.json": '{"event":"SessionEnd","command":"bye.sh"}',
          "bye.sh": { text: "#!/bin/sh\n", exec: true },
        }),
      ],
      context("user", home, home),
    );
    expect(result.notes).toEqual([
      "homelab/agent/nodesc not written for OpenCode: OpenCode needs a description (frontmatter `description`)",
      "homelab/hook/bye not written for OpenCode: its plugin events have no SessionEnd",
    ]);
  });
});
