import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseFrontmatter } from "../../../../src/client/provision/targets/frontmatter.js";
import { kiro as kiroTarget } from "../../../../src/client/provision/targets/kiro.js";
import { useTempDirs } from "../../../support/temp-dir.js";
import { applyResult, checkSectionLaws } from "./apply.js";
import { context, fullSet, USER_MCP } from "./artifacts.js";

const sandbox = useTempDirs("carto-tgt-kiro-");

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
