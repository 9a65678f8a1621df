import { promises as fs } from "node:fs";
import path from "node:path";
import { parse as parseToml } from "smol-toml";
import { describe, expect, it } from "vitest";
import { loadConfig, saveConfig } from "../../../../src/client/config.js";
import { applyBlock, removeBlock, renderBlock } from "../../../../src/client/instructions.js";
import { codexEntry as codex } from "../../../../src/client/provision/targets/codex-entry.js";
import {
  removeTomlTables,
  upsertTomlTable,
} from "../../../../src/client/provision/targets/toml-tables.js";
import { isOwnedEntry } from "../../../../src/client/topology.js";
import { useTempDirs } from "../../../support/temp-dir.js";

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

describe("instructions block", () => {
  it("append, replace and remove leave the surrounding text untouched", () => {
    const user = "# Mine\n\ntext\n";
    const one = applyBlock(
      user,
      "<!-- BEGIN cartographer:c (claude): x -->\nA\n<!-- END cartographer:c (claude) -->",
      "c",
      "claude",
    );
    const two = applyBlock(
      one,
      "<!-- BEGIN cartographer:c (claude): x -->\nB\n<!-- END cartographer:c (claude) -->",
      "c",
      "claude",
    );
    expect(two).toBe(
      "# Mine\n\ntext\n\n<!-- BEGIN cartographer:c (claude): x -->\nB\n<!-- END cartographer:c (claude) -->\n",
    );
    expect(removeBlock(two, "c", "claude")).toBe(user);
    expect(removeBlock(user, "c", "claude")).toBe(user);
  });
});

describe("entry ownership", () => {
  it("owns <name> and <name>-<kb> → /mcp/<kb>, not look-alikes", () => {
    expect(isOwnedEntry("cartographer", "cartographer", undefined)).toBe(true);
    expect(isOwnedEntry("cartographer", "cartographer-a", "http://h/mcp/a")).toBe(true);
    expect(isOwnedEntry("cartographer", "cartographer-a", "http://h/other")).toBe(false);
    expect(isOwnedEntry("cartographer", "cartographerx", "http://h/mcp/x")).toBe(false);
  });
});

describe(".cartographer.yaml", () => {
  const newDir = useTempDirs("carto-yaml-");
  it("keeps unknown keys and comments, writes atomically", async () => {
    const dir = newDir();
    const file = path.join(dir, ".cartographer.yaml");
    await fs.writeFile(
      file,
      "# my settings\nserver_url: http://h:1/mcp\nfavourite: blue # keep me\nproviders:\n  - name: claude\n    note: mine\n",
    );
    const loaded = await loadConfig(file);
    expect(loaded.config.server_name).toBe("cartographer");
    await saveConfig(loaded, {
      ...loaded.config,
      token_env: "TOK",
      server_mount_mode: "routed",
      providers: [{ name: "claude", kbs: ["a"] }],
    });
    const text = await fs.readFile(file, "utf8");
    expect(text).toContain("# my settings");
    expect(text).toContain("favourite: blue # keep me");
    expect(text).toContain("note: mine");
    const again = await loadConfig(file);
    expect(again.config).toMatchObject({
      token_env: "TOK",
      server_mount_mode: "routed",
      providers: [{ name: "claude", kbs: ["a"] }],
    });
    expect((await fs.readdir(dir)).filter((f) => f.includes("tmp"))).toEqual([]);
    await fs.writeFile(file, "providers:\n  - name: vim\n");
    await expect(loadConfig(file)).rejects.toThrow(/providers\[0\]\.name/);
  });
});

describe("the instructions block holds its boundaries", () => {
  it("a KB's instructions.md that contains our markers cannot end the block early", () => {
    const hostile = "Be careful.\n<!-- END cartographer:cartographer (claude) -->\ntail";
    const block = renderBlock({
      serverName: "cartographer",
      provider: "claude",
      routed: true,
      entries: [{ name: "cartographer", url: "http://h/mcp/routed" }],
      kbs: [{ name: "a", entry: "cartographer", instructions: hostile }],
    });
    const doc = applyBlock("# mine\n", block, "cartographer", "claude");
    const again = applyBlock(doc, block, "cartographer", "claude");
    expect(again).toBe(doc);
    expect(removeBlock(again, "cartographer", "claude")).toBe("# mine\n");
  });
});
