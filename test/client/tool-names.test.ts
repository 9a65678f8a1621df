/**
 * The instructions block names the tools as each agent's model sees them (tool-names.ts cites
 * the source of each form). Pure: renderBlock and each provider's toolName, no server.
 */
import { describe, expect, it } from "vitest";
import type { ProviderId } from "../../src/client/config.js";
import { renderBlock } from "../../src/client/instructions.js";
import { PROVIDERS } from "../../src/client/provision/targets/index.js";

/** The name under which `provider`'s model sees `tool`, as the instructions block renders it. */
const agentToolName = (provider: ProviderId, server: string, tool: string) =>
  PROVIDERS[provider].toolName(server, tool);

const tools = ["atlas_overview", "map_list", "search"];

function routedBlock(provider: ProviderId, serverName = "cartographer"): string {
  return renderBlock({
    serverName,
    provider,
    routed: true,
    entries: [{ name: serverName, url: "http://127.0.0.1:39273/mcp/routed?kbs=a,b" }],
    tools,
    kbs: [
      { name: "a", kbArg: "a", entry: serverName },
      { name: "b", kbArg: "b", entry: serverName },
    ],
  });
}

describe("tool names per provider", () => {
  it.each([
    ["claude", "mcp__cartographer__search"],
    ["codex", "mcp__cartographer__search"],
    ["opencode", "cartographer_search"],
    ["kiro", "mcp_cartographer_search"],
    ["antigravity", "search"],
  ] as const)("%s sees search as %s", (provider, name) => {
    expect(agentToolName(provider, "cartographer", "search")).toBe(name);
  });

  it("a dash in the entry name: Codex and Kiro make it _, Claude Code and OpenCode keep it", () => {
    expect(agentToolName("codex", "cartographer-a", "map_list")).toBe(
      "mcp__cartographer_a__map_list",
    );
    expect(agentToolName("kiro", "cartographer-a", "map_list")).toBe("mcp_cartographer_a_map_list");
    expect(agentToolName("claude", "cartographer-a", "map_list")).toBe(
      "mcp__cartographer-a__map_list",
    );
    expect(agentToolName("opencode", "cartographer-a", "map_list")).toBe("cartographer-a_map_list");
  });

  it("the routed block lists every tool under the provider's name for it", () => {
    expect(routedBlock("claude")).toContain(
      "Tools: `mcp__cartographer__atlas_overview`, `mcp__cartographer__map_list`, `mcp__cartographer__search`.",
    );
    expect(routedBlock("codex")).toContain(
      "In Codex its tools are named `mcp__cartographer__<tool>`",
    );
    expect(routedBlock("opencode")).toContain(
      "Tools: `cartographer_atlas_overview`, `cartographer_map_list`, `cartographer_search`.",
    );
    const kiro = routedBlock("kiro");
    expect(kiro).toContain("Tools: `mcp_cartographer_atlas_overview`");
    expect(kiro).toContain("Kiro CLI lists them by their bare names (`search`)");
    const antigravity = routedBlock("antigravity");
    expect(antigravity).toContain("Tools: `atlas_overview`, `map_list`, `search`.");
    expect(antigravity).toContain("call them on MCP server `cartographer`");
    // The kb values are there whatever the naming.
    expect(routedBlock("opencode")).toContain('### KB `b`\nPass `kb: "b"`.');
  });

  it("a custom server_name is the prefix", () => {
    expect(routedBlock("claude", "notes")).toContain("`mcp__notes__search`");
    expect(routedBlock("claude", "notes")).not.toContain("mcp__cartographer__");
  });

  it("per-KB entries (older server): each KB names its own entry's prefix", () => {
    const block = renderBlock({
      serverName: "cartographer",
      provider: "codex",
      routed: false,
      entries: [
        { name: "cartographer-a", url: "http://h/mcp/a" },
        { name: "cartographer-b", url: "http://h/mcp/b" },
      ],
      tools,
      kbs: [
        { name: "a", entry: "cartographer-a" },
        { name: "b", entry: "cartographer-b" },
      ],
    });
    expect(block).toContain(
      "Use the tools of MCP server `cartographer-b`. In Codex its tools are named `mcp__cartographer_b__<tool>`, e.g. `mcp__cartographer_b__search`.",
    );
    expect(block).toContain("Tools on each entry (bare MCP names): `atlas_overview`");
  });
});
