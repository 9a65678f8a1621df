/**
 * Codex re-serializes config.toml when it saves its own state (trusted hook hashes, projects) and
 * drops every comment, our block markers with them (Go's D99). Our hook groups are ours by
 * identity, so such a file reads in sync, and a sync rewrites it without registering any hook
 * twice, keeping Codex's `[hooks.state…]` bookkeeping and the user's own hooks.
 */
import { parse as parseToml } from "smol-toml";
import { describe, expect, it } from "vitest";
import { codex as codexTarget } from "../../../../src/client/provision/targets/codex.js";
import { useTempDirs } from "../../../support/temp-dir.js";
import { artifact, context, HOOK } from "./artifacts.js";

const sandbox = useTempDirs("carto-tgt-codex-rw-");

const USER = `model = "o3"

[[hooks.PostToolUse]]
matcher = "Bash"
[[hooks.PostToolUse.hooks]]
type = "command"
command = "echo mine"
`;

const BARE = artifact("hook", "env-block", {
  "hook.json":
    '{"event":"PreToolUse","matcher":"Edit|Write","command":"jq -e .x >/dev/null || true"}',
});

/** What Codex leaves after saving a trusted hook: no comments, its state table appended. */
function codexRewrite(text: string): string {
  const kept = text
    .split("\n")
    .filter((l) => !l.trim().startsWith("#"))
    .join("\n");
  return `${kept}\n[hooks.state."config.toml:pre_tool_use:0:0"]\ntrusted_hash = "sha256:00"\n`;
}

// biome-ignore lint/suspicious/noExplicitAny: a parsed TOML document, navigated by the assertions
type Toml = Record<string, any>;

describe("Codex config.toml re-serialized by Codex", () => {
  it("reads in sync without our markers; a sync neither duplicates a hook nor loses Codex's state or the user's hook", () => {
    const home = sandbox();
    const result = codexTarget.render(
      [HOOK, BARE],
      context("user", home, home, { bootstrapHook: true }),
    );
    const hooks = result.sections.find((s) => s.id === "hooks");
    if (!hooks) throw new Error("no hooks section");
    const written = hooks.write(USER, hooks.desired);
    expect(written).toContain("# BEGIN cartographer:cartographer hooks");

    const rewritten = codexRewrite(written);
    expect(rewritten).not.toContain("# BEGIN");
    expect(hooks.read(rewritten)).toBe(hooks.desired);

    const synced = hooks.write(rewritten, hooks.desired);
    const doc = parseToml(synced) as Toml;
    expect(doc.hooks.SessionStart).toHaveLength(1);
    expect(doc.hooks.PreToolUse).toHaveLength(1);
    expect(doc.hooks.PostToolUse.map((g: Toml) => g.hooks[0].command)).toEqual([
      "echo mine",
      expect.stringMatching(/\/fmt\/fmt\.sh --check 'a b'$/),
    ]);
    expect(doc.hooks.state).toEqual({
      "config.toml:pre_tool_use:0:0": { trusted_hash: "sha256:00" },
    });
    expect(synced).toContain("# BEGIN cartographer:cartographer hooks");
    expect(hooks.read(synced)).toBe(hooks.desired);

    // Pruning removes our groups, marked or not, and keeps the rest.
    const pruned = parseToml(hooks.write(rewritten, null)) as Toml;
    expect(pruned.hooks.PostToolUse).toEqual([
      { matcher: "Bash", hooks: [{ type: "command", command: "echo mine" }] },
    ]);
    expect(pruned.hooks.PreToolUse).toBeUndefined();
    expect(pruned.hooks.SessionStart).toBeUndefined();
    expect(pruned.hooks.state).toBeDefined();
    expect(pruned.model).toBe("o3");
  });
});
