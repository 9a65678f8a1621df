import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { antigravity as antigravityTarget } from "../../../../src/client/provision/targets/antigravity.js";
import { parseFrontmatter } from "../../../../src/client/provision/targets/frontmatter.js";
import { kiro as kiroTarget } from "../../../../src/client/provision/targets/kiro.js";
import { useTempDirs } from "../../../support/temp-dir.js";
import { applyResult, checkSectionLaws } from "./apply.js";
import { artifact, context, fullSet } from "./artifacts.js";

const sandbox = useTempDirs("carto-tgt-kiro-agy-");

const USER_MCP = `${JSON.stringify(
  {
    mcpServers: {
      cartographer: { url: "http://127.0.0.1:39273/mcp/routed", autoApprove: ["search"] },
    },
  },
  null,
  2,
)}\n`;

describe.each(["user", "project"] as const)("Kiro target, %s scope", (scope) => {
  it("renders skills and MCP entries (references kept); notes agents, hooks and the bootstrap hook", () => {
    const home = sandbox();
    const proj = sandbox();
    const result = kiroTarget.render(
      fullSet(),
      context(scope, home, proj, { bootstrapHook: true }),
    );
    const root = join(scope === "user" ? home : proj, ".kiro");
    expect(result.roots).toEqual([root]);
    applyResult(result);
    const fm = parseFrontmatter(
      readFileSync(join(root, "skills", "kbinfra--query-rete", "SKILL.md"), "utf8"),
    );
    expect("data" in fm && fm.data.name).toBe("kbinfra--query-rete");
    const mcp = JSON.parse(readFileSync(join(root, "settings", "mcp.json"), "utf8")).mcpServers;
    expect(mcp["cartographer-homelab-grafana"]).toEqual({
      url: "https://grafana.example/mcp",
      headers: { Authorization: `Bearer \${GRAFANA_TOKEN}` },
    });
    expect(mcp["cartographer-homelab-files"]).toEqual({
      command: "mcp-files",
      args: ["--root", "/srv"],
      env: { FILES_KEY: `\${FILES_KEY}` },
    });
    expect(result.notes).toEqual([
      "Kiro: subagents not supported (Kiro custom agents are JSON session configurations with their own tool permissions); homelab/agent/kb-reviewer not written",
      "Kiro: hooks not supported (Kiro hooks are IDE .kiro.hook files or part of a custom agent); homelab/hook/fmt not written",
      "Kiro: the bootstrap hook is not supported (no session-start hook outside a custom agent); run cartographer sync yourself",
    ]);
    // The instructions block owns .kiro/steering/cartographer.md: nothing of ours goes there.
    expect(result.files.some((f) => f.path.includes("steering"))).toBe(false);
    checkSectionLaws(result, () => USER_MCP);
  });
});

describe("Antigravity target", () => {
  it("user scope: skills under ~/.gemini/config/skills, reference-free MCP entries; the rest noted", () => {
    const home = sandbox();
    const plain = artifact("mcp", "docs", {
      "docs.json": '{"type":"http","url":"https://docs.example/mcp"}',
    });
    const result = antigravityTarget.render(
      [...fullSet(), plain],
      context("user", home, home, { bootstrapHook: true }),
    );
    const root = join(home, ".gemini", "config");
    expect(result.roots).toEqual([root]);
    applyResult(result);
    expect(statSync(join(root, "skills", "kbinfra--query-rete", "SKILL.md")).isFile()).toBe(true);
    const mcp = JSON.parse(readFileSync(join(root, "mcp_config.json"), "utf8")).mcpServers;
    expect(mcp).toEqual({ "cartographer-homelab-docs": { serverUrl: "https://docs.example/mcp" } });
    expect(result.notes).toEqual([
      "Antigravity: subagents not supported (no documented subagent files); homelab/agent/kb-reviewer not written",
      "Antigravity: hooks not supported (no documented hook configuration); homelab/hook/fmt not written",
      "Antigravity: the bootstrap hook is not supported (no documented hooks); run cartographer sync yourself",
      `homelab/mcp/files not written for Antigravity: it needs \${VAR} references, which Antigravity does not expand`,
      `homelab/mcp/grafana not written for Antigravity: it needs \${VAR} references, which Antigravity does not expand`,
    ]);
    checkSectionLaws(result, () => USER_MCP);
  });

  it("project scope writes nothing and says so", () => {
    const home = sandbox();
    const result = antigravityTarget.render(fullSet(), context("project", home, sandbox()));
    expect(result).toEqual({
      roots: [],
      files: [],
      sections: [],
      notes: [
        "Antigravity: provisioned at user scope only (as its MCP entry); agent, hook, mcp, skill not written",
      ],
    });
  });
});
