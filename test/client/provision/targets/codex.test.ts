import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { parse as parseToml } from "smol-toml";
import { describe, expect, it } from "vitest";
import { codex as codexTarget } from "../../../../src/client/provision/targets/codex.js";
import { parseFrontmatter } from "../../../../src/client/provision/targets/frontmatter.js";
import { useTempDirs } from "../../../support/temp-dir.js";
import { applyResult, checkSectionLaws } from "./apply.js";
import { AGENT, artifact, context, fullSet, HOOK, MCP_HTTP } from "./artifacts.js";

const sandbox = useTempDirs("carto-tgt-codex-");

// biome-ignore lint/suspicious/noExplicitAny: a parsed TOML document, navigated by the assertions
type Toml = Record<string, any>;

const USER_TOML = `# my settings
model = "o3"

[mcp_servers.cartographer]
url = "http://127.0.0.1:39273/mcp/routed"
bearer_token_env_var = "CARTOGRAPHER_TOKEN"

[projects."/home/me/src"]
trust_level = "trusted" # keep this comment

[[hooks.PostToolUse]]
matcher = "Bash"
[[hooks.PostToolUse.hooks]]
type = "command"
command = "echo mine"
`;

describe.each(["user", "project"] as const)("Codex target, %s scope", (scope) => {
  it("renders skills, TOML agents, config.toml hooks and MCP tables, parseable back", () => {
    const home = sandbox();
    const proj = sandbox();
    const codexHome = join(home, "codex-home");
    const ctx = context(scope, home, proj, { bootstrapHook: true, env: { CODEX_HOME: codexHome } });
    const result = codexTarget.render(fullSet(), ctx);
    const codex = scope === "user" ? codexHome : join(proj, ".codex");
    const skills = join(scope === "user" ? home : proj, ".agents", "skills");
    expect(result.roots).toEqual([codex, skills]);
    applyResult(result);

    const fm = parseFrontmatter(
      readFileSync(join(skills, "kbinfra--query-rete", "SKILL.md"), "utf8"),
    );
    expect("data" in fm && fm.data.description).toMatch(/infra map/);
    const agent = parseToml(readFileSync(join(codex, "agents", "kb-reviewer.toml"), "utf8"));
    expect(agent).toEqual({
      name: "kb-reviewer",
      description: "Reviews KB concepts for broken links.",
      developer_instructions: "You review the homelab KB.\nReport broken links.\n",
    });
    expect(statSync(join(codex, "hooks", "cartographer", "fmt", "fmt.sh")).mode & 0o111).not.toBe(
      0,
    );

    const config = parseToml(readFileSync(join(codex, "config.toml"), "utf8")) as Toml;
    const dir = join(codex, "hooks", "cartographer");
    expect(config.hooks.PostToolUse).toEqual([
      {
        matcher: "Edit|Write",
        hooks: [{ type: "command", command: `${dir}/fmt/fmt.sh --check 'a b'`, timeout: 30 }],
      },
    ]);
    expect(config.hooks.SessionStart).toEqual([
      { matcher: "startup", hooks: [{ type: "command", command: `${dir}/_bootstrap.sh` }] },
    ]);
    expect(config.mcp_servers["cartographer-homelab-grafana"]).toEqual({
      url: "https://grafana.example/mcp",
      bearer_token_env_var: "GRAFANA_TOKEN",
    });
    expect(config.mcp_servers["cartographer-homelab-files"]).toEqual({
      command: "mcp-files",
      args: ["--root", "/srv"],
      env_vars: ["FILES_KEY"],
    });
    expect(readFileSync(join(codex, "config.toml"), "utf8")).not.toMatch(/\$\{/);
  });

  it("sections keep the user's file byte for byte and remove exactly ours", () => {
    const home = sandbox();
    const ctx = context(scope, home, sandbox(), { bootstrapHook: true });
    const result = codexTarget.render(fullSet(), ctx);
    checkSectionLaws(result, () => USER_TOML);
    checkSectionLaws(result, () => null);
    let text = USER_TOML;
    for (const s of result.sections) text = s.write(text, s.desired);
    expect(text.startsWith(USER_TOML)).toBe(true);
    const doc = parseToml(text) as Toml;
    expect(doc.hooks.PostToolUse[0].hooks[0].command).toBe("echo mine");
    expect(doc.hooks.PostToolUse).toHaveLength(2);
    expect(doc.mcp_servers.cartographer.url).toBe("http://127.0.0.1:39273/mcp/routed");
  });

  it("an empty set lists the hooks block with desired null; owned MCP tables come back for the prune", () => {
    const home = sandbox();
    const proj = sandbox();
    const config =
      scope === "user" ? join(home, ".codex", "config.toml") : join(proj, ".codex", "config.toml");
    const ctx = context(scope, home, proj, {
      ownedSections: [{ file: config, id: "mcp:cartographer-homelab-grafana" }],
    });
    const full = codexTarget.render([HOOK, MCP_HTTP], ctx);
    let text = USER_TOML;
    for (const s of full.sections) text = s.write(text, s.desired);
    const empty = codexTarget.render([], ctx);
    expect(empty.sections.map((s) => [s.id, s.desired])).toEqual([
      ["hooks", null],
      ["mcp:cartographer-homelab-grafana", null],
    ]);
    for (const s of empty.sections) text = s.write(text, null);
    expect(text).toBe(USER_TOML);
  });
});

describe("Codex conversions", () => {
  it("notes what Codex cannot take: an agent without description, a SessionEnd hook, a renamed env var", () => {
    const home = sandbox();
    const result = codexTarget.render(
      [
        AGENT,
        artifact("agent", "nodesc", { "nodesc.md": "---\nname: nodesc\n---\nBody\n" }),
        artifact("hook", "bye", {
          "hook.json": '{"event":"SessionEnd","command":"bye.sh"}',
          "bye.sh": { text: "#!/bin/sh\n", exec: true },
        }),
        artifact("mcp", "renamed", {
          "renamed.json": `{"type":"stdio","command":"x","env":{"KEY":"\${OTHER}"}}`,
        }),
      ],
      context("user", home, home),
    );
    expect(result.notes).toEqual([
      "homelab/agent/nodesc not written for Codex: Codex needs a description (frontmatter `description`)",
      "homelab/hook/bye not written for Codex: Codex has no SessionEnd hook event",
      "homelab/mcp/renamed not written for Codex: Codex passes variables through under their own name only (env KEY)",
    ]);
    expect(result.files.map((f) => f.path)).toEqual([
      join(home, ".codex", "agents", "kb-reviewer.toml"),
    ]);
  });

  it("keeps any agent body exact in TOML: a readable literal string, escaped when it holds a triple quote or a control character", () => {
    const home = sandbox();
    const bodies = ["Plain\nlines\n", "Quote ''' inside\n", 'Bell \u0007 and "quotes" \\ back\n'];
    for (const body of bodies) {
      const a = artifact("agent", "x", { "x.md": `---\ndescription: d\n---\n${body}` });
      const file = codexTarget.render([a], context("user", home, home)).files[0];
      expect(parseToml(file?.bytes.toString("utf8") ?? "").developer_instructions).toBe(body);
    }
  });

  it("refuses to edit a config.toml that does not parse, and one whose hooks are an inline array", () => {
    const home = sandbox();
    const result = codexTarget.render([HOOK], context("user", home, home));
    const hooks = result.sections[0];
    expect(() => hooks?.write("model = [", hooks.desired)).toThrow(/not valid TOML/);
    expect(() =>
      hooks?.write('[hooks]\nPostToolUse = [{ matcher = "x", hooks = [] }]\n', hooks.desired),
    ).toThrow(/not valid TOML/);
  });
});
