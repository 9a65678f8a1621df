/** TOML edits (Codex config.toml) are textual and surgical: every byte not ours is kept. */
import { parse as parseToml } from "smol-toml";
import { describe, expect, it } from "vitest";
import { codexEntry as codex } from "../../../../src/client/provision/targets/codex-entry.js";
import {
  removeTomlTables,
  upsertTomlTable,
} from "../../../../src/client/provision/targets/toml-tables.js";

const ORIGINAL = `# top comment
model = "o3"

[mcp_servers.cartographer]
url = "http://old/mcp/routed" # old
bearer_token_env_var = "OLD"

[mcp_servers.cartographer.tools.search]
approval = "auto"

# belongs to the next table
[mcp_servers.other]
command = "x"
text = """
[mcp_servers.cartographer]
not a header
"""
`;

describe("TOML edits are textual and surgical", () => {
  it("replaces our keys in place, keeps the user's sub-tables (tool approvals) and every other byte", () => {
    const out = codex.applyEntries(
      ORIGINAL,
      "config.toml",
      ["cartographer"],
      [{ name: "cartographer", url: "http://new/mcp/routed" }],
      { tokenEnv: "TOK" },
    );
    expect(out).toBe(`# top comment
model = "o3"

[mcp_servers.cartographer]
url = "http://new/mcp/routed"
bearer_token_env_var = "TOK"

[mcp_servers.cartographer.tools.search]
approval = "auto"

# belongs to the next table
[mcp_servers.other]
command = "x"
text = """
[mcp_servers.cartographer]
not a header
"""
`);
    const parsed = parseToml(out) as { mcp_servers: Record<string, Record<string, unknown>> };
    expect(parsed.mcp_servers.other?.text).toContain("not a header");
  });

  it("keeps the user's own keys of a remote entry; replaces a local (command) entry whole", () => {
    const remote = `[mcp_servers.cartographer]
url = "http://old/mcp/routed"
tool_timeout_sec = 90
enabled_tools = [
  "search",
]
`;
    const out = codex.applyEntries(
      remote,
      "config.toml",
      ["cartographer"],
      [{ name: "cartographer", url: "http://new/mcp/routed" }],
      { tokenEnv: "TOK" },
    );
    expect(parseToml(out)).toEqual({
      mcp_servers: {
        cartographer: {
          url: "http://new/mcp/routed",
          bearer_token_env_var: "TOK",
          tool_timeout_sec: 90,
          enabled_tools: ["search"],
        },
      },
    });
    const local = `[mcp_servers.cartographer]
command = "cartographer"
args = ["serve", "--stdio"]

[mcp_servers.cartographer.env]
CARTOGRAPHER_DATA = "/data"
`;
    const replaced = codex.applyEntries(
      local,
      "config.toml",
      ["cartographer"],
      [{ name: "cartographer", url: "http://new/mcp/routed" }],
      {},
    );
    expect(parseToml(replaced)).toEqual({
      mcp_servers: { cartographer: { url: "http://new/mcp/routed" } },
    });
  });

  it("append then remove restores the original bytes", () => {
    const before = "# c\n[a]\nx = 1 # keep\n";
    const added = upsertTomlTable(
      before,
      "mcp_servers",
      "kb.one",
      '[mcp_servers."kb.one"]\nurl = "u"',
    );
    expect(added).toBe('# c\n[a]\nx = 1 # keep\n\n[mcp_servers."kb.one"]\nurl = "u"\n');
    expect(removeTomlTables(added, "mcp_servers", "kb.one")).toBe(before);
  });

  it("refuses to edit an entry defined as an inline table rather than corrupt it", () => {
    const inline = 'mcp_servers = { cartographer = { url = "http://x/mcp/routed" } }\n';
    expect(() =>
      codex.applyEntries(
        inline,
        "c.toml",
        ["cartographer"],
        [{ name: "cartographer", url: "http://y/mcp/routed" }],
        {},
      ),
    ).toThrow(/edit it by hand/);
  });
});
