import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { antigravity as antigravityTarget } from "../../../../src/client/provision/targets/antigravity.js";
import { useTempDirs } from "../../../support/temp-dir.js";
import { applyResult, checkSectionLaws } from "./apply.js";
import { artifact, context, fullSet, USER_MCP } from "./artifacts.js";

const sandbox = useTempDirs("carto-tgt-agy-");

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
