import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { claude as claudeTarget } from "../../../../src/client/provision/targets/claude.js";
import { parseFrontmatter } from "../../../../src/client/provision/targets/frontmatter.js";
import { useTempDirs } from "../../../support/temp-dir.js";
import { applyResult, checkSectionLaws } from "./apply.js";
import { AGENT, artifact, context, fullSet, HOOK, MCP_HTTP } from "./artifacts.js";

const sandbox = useTempDirs("carto-tgt-claude-");

// The user's files, in the layout a JSON rewrite keeps (its own 4-space indent); the user's
// inline formatting would be re-flowed, as connect's MCP entry edit does (docs/client.md).
const USER_SETTINGS = `${JSON.stringify(
  {
    model: "opus",
    hooks: {
      PostToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "echo mine" }] }],
    },
  },
  null,
  4,
)}\n`;
const USER_MCP = JSON.stringify(
  {
    mcpServers: {
      cartographer: { type: "http", url: "http://127.0.0.1:39273/mcp/routed" },
      mine: { command: "x" },
    },
    other: 1,
  },
  null,
  2,
);

describe.each(["user", "project"] as const)("Claude Code target, %s scope", (scope) => {
  it("renders skills, agents, hooks and MCP entries into the documented places, parseable back", () => {
    const home = sandbox();
    const proj = sandbox();
    const ctx = context(scope, home, proj, { bootstrapHook: true });
    const result = claudeTarget.render(fullSet(), ctx);
    const base = scope === "user" ? home : proj;
    const root = join(base, ".claude");
    const mcpFile = scope === "user" ? join(home, ".claude.json") : join(proj, ".mcp.json");
    expect(result.roots).toEqual([root, mcpFile]);
    applyResult(result);

    const skill = readFileSync(join(root, "skills", "kbinfra--query-rete", "SKILL.md"), "utf8");
    const fm = parseFrontmatter(skill);
    expect("data" in fm && fm.data.name).toBe("kbinfra--query-rete");
    const agent = parseFrontmatter(readFileSync(join(root, "agents", "kb-reviewer.md"), "utf8"));
    expect("data" in agent && agent.data.description).toBe("Reviews KB concepts for broken links.");
    const script = join(root, "hooks", "cartographer", "fmt", "fmt.sh");
    expect(statSync(script).mode & 0o111).not.toBe(0);
    // Go's floor: every hook file but hook.json is executable, whatever its KB mode.
    expect(
      statSync(join(root, "hooks", "cartographer", "fmt", "lib", "common.sh")).mode & 0o111,
    ).not.toBe(0);
    expect(statSync(join(root, "hooks", "cartographer", "fmt", "hook.json")).mode & 0o111).toBe(0);

    const settings = JSON.parse(readFileSync(join(root, "settings.json"), "utf8"));
    const word =
      scope === "user"
        ? join(root, "hooks", "cartographer")
        : `"$CLAUDE_PROJECT_DIR"/.claude/hooks/cartographer`;
    expect(settings.hooks.PostToolUse).toEqual([
      {
        matcher: "Edit|Write",
        hooks: [{ type: "command", command: `${word}/fmt/fmt.sh --check 'a b'`, timeout: 30 }],
      },
    ]);
    expect(settings.hooks.SessionStart[0].hooks[0].command).toBe(`${word}/_bootstrap.sh`);
    expect(readFileSync(join(root, "hooks", "cartographer", "_bootstrap.sh"), "utf8")).toContain(
      "command -v cartographer >/dev/null 2>&1 && cartographer sync >/dev/null 2>&1 || true",
    );

    const mcp = JSON.parse(readFileSync(mcpFile, "utf8"));
    expect(mcp.mcpServers["cartographer-homelab-grafana"]).toEqual({
      type: "http",
      url: "https://grafana.example/mcp",
      headers: { Authorization: `Bearer \${GRAFANA_TOKEN}` },
    });
    expect(mcp.mcpServers["cartographer-homelab-files"].env).toEqual({
      FILES_KEY: `\${FILES_KEY}`,
    });
    // instructions go through the instructions block, not here
    expect(result.files.some((f) => f.origin.includes("/instructions/"))).toBe(false);
  });

  it("sections keep the user's keys, hooks and the cartographer entry, and remove exactly ours", () => {
    const home = sandbox();
    const ctx = context(scope, home, sandbox(), { bootstrapHook: true });
    const result = claudeTarget.render(fullSet(), ctx);
    checkSectionLaws(result, (file) => (file.endsWith("settings.json") ? USER_SETTINGS : USER_MCP));
    const hooks = result.sections.find((s) => s.id === "hooks");
    const written = hooks?.write(USER_SETTINGS, hooks.desired) ?? "";
    const parsed = JSON.parse(written);
    expect(parsed.model).toBe("opus");
    expect(parsed.hooks.PostToolUse[0].hooks[0].command).toBe("echo mine");
    expect(written).toContain('\n    "model"'); // the file's 4-space indent kept
    const entry = result.sections.find((s) => s.id === "mcp:cartographer-homelab-grafana");
    const mcp = JSON.parse(entry?.write(USER_MCP, entry.desired) ?? "");
    expect(Object.keys(mcp.mcpServers)).toEqual([
      "cartographer",
      "mine",
      "cartographer-homelab-grafana",
    ]);
  });

  it("lists every section with desired null for an empty artifact set, so a prune removes them", () => {
    const home = sandbox();
    const ctx = context(scope, home, sandbox(), {
      ownedSections: [
        {
          file: scope === "user" ? join(home, ".claude.json") : "elsewhere",
          id: "mcp:cartographer-homelab-grafana",
        },
      ],
    });
    const empty = claudeTarget.render([], ctx);
    expect(empty.files).toEqual([]);
    expect(empty.sections.every((s) => s.desired === null)).toBe(true);
    expect(empty.sections.map((s) => s.id)).toEqual(
      scope === "user" ? ["hooks", "mcp:cartographer-homelab-grafana"] : ["hooks"],
    );
    // The prune of a section written before: our hooks go, the user's stay.
    const full = claudeTarget.render([HOOK], ctx);
    const hooks = full.sections[0];
    const withOurs = hooks?.write(USER_SETTINGS, hooks.desired) ?? "";
    expect(empty.sections[0]?.write(withOurs, null)).toBe(USER_SETTINGS);
  });
});

describe("Claude Code target safety", () => {
  it("drops unsafe names, paths, executable agents and bad frontmatter with a note, renders the rest", () => {
    const bad = [
      artifact("skill", "../escape", { "SKILL.md": "---\nname: x\n---\n" }),
      artifact("skill", "dotfile", { "SKILL.md": "---\nname: x\n---\n", ".env": "A=1" }),
      artifact("skill", "up", { "SKILL.md": "---\nname: x\n---\n", "a/../../b": "x" }),
      artifact("skill", "abs", { "SKILL.md": "---\nname: x\n---\n", "/etc/passwd": "x" }),
      artifact("skill", "bs", { "SKILL.md": "---\nname: x\n---\n", "a\\b": "x" }),
      artifact("skill", "ctl", { "SKILL.md": "---\nname: x\n---\n", "a\u0007b": "x" }),
      artifact("skill", "nofm", { "SKILL.md": "# no frontmatter\n" }),
      artifact("skill", "badyaml", { "SKILL.md": "---\nname: [unclosed\n---\n" }),
      artifact("agent", "exec", { "exec.md": { text: "---\nname: e\n---\n", exec: true } }),
      artifact("hook", "noexec", {
        "hook.json": '{"event":"Stop","command":"./missing.sh"}',
        "run.sh": "#!/bin/sh\n",
      }),
      artifact("hook", "shell", { "hook.json": '{"event":"Stop","command":"echo a\\nrm -rf /"}' }),
      artifact("hook", "event", {
        "hook.json": '{"event":"Boom","command":"r.sh"}',
        "r.sh": { text: "", exec: true },
      }),
      artifact("mcp", "secret", {
        "secret.json": '{"type":"http","url":"https://x.example","headers":{"A":"literal"}}',
      }),
    ];
    const home = sandbox();
    const result = claudeTarget.render([...bad, AGENT, MCP_HTTP], context("user", home, home));
    expect(result.notes).toHaveLength(bad.length);
    for (const n of [
      "../escape",
      "dotfile",
      "up",
      "abs",
      "bs",
      "ctl",
      "nofm",
      "badyaml",
      "exec",
      "noexec",
      "shell",
      "event",
      "secret",
    ]) {
      expect(
        result.notes.some(
          (x) =>
            x.includes(`/${n} not written`) ||
            x.includes(`${JSON.stringify(n).slice(1, -1)} not written`),
        ),
        n,
      ).toBe(true);
    }
    expect(result.files.map((f) => f.path)).toEqual([
      join(home, ".claude", "agents", "kb-reviewer.md"),
    ]);
    expect(result.sections.map((s) => s.id)).toEqual(["hooks", "mcp:cartographer-homelab-grafana"]);
    expect(result.notes.join("\n").includes("\u0007")).toBe(false);
  });

  it("renders a bundled skill offered by two KBs once, and notes a clash of different content", () => {
    const a = artifact(
      "skill",
      "kb-create",
      { "SKILL.md": "---\nname: kb-create\n---\nA\n" },
      "alpha",
    );
    const b = {
      ...artifact("skill", "kb-create", { "SKILL.md": "---\nname: kb-create\n---\nA\n" }, "beta"),
    };
    const c = artifact(
      "skill",
      "kb-create",
      { "SKILL.md": "---\nname: kb-create\n---\nC\n" },
      "gamma",
    );
    const home = sandbox();
    const result = claudeTarget.render([c, b, a], context("user", home, home));
    expect(result.files.map((f) => f.origin)).toEqual(["alpha/skill/kb-create"]);
    expect(result.notes).toEqual([
      "gamma/skill/kb-create not written: KB alpha has a different skill of the same name (rename one of them)",
    ]);
  });
});

describe("MCP entry names", () => {
  it("are <server>-<kb>-<name>; a KB name unfit for an entry name, or one that would hit a per-KB cartographer entry, is noted", () => {
    const home = sandbox();
    const odd = artifact(
      "mcp",
      "grafana",
      { "grafana.json": '{"type":"http","url":"https://g.example/mcp"}' },
      "Bad KB",
    );
    // KB "homelab-grafana" exists: its per-KB entry (older servers) is cartographer-homelab-grafana.
    const other = artifact("skill", "x", { "SKILL.md": "---\nname: x\n---\n" }, "homelab-grafana");
    const notesKb = artifact(
      "mcp",
      "grafana",
      { "grafana.json": '{"type":"http","url":"https://g.example/mcp"}' },
      "notes",
    );
    const result = claudeTarget.render(
      [MCP_HTTP, odd, other, notesKb],
      context("user", home, home),
    );
    // The same descriptor name in two KBs gives two entries, not a clash.
    expect(result.sections.map((s) => s.id)).toEqual(["hooks", "mcp:cartographer-notes-grafana"]);
    expect(result.notes).toEqual([
      'Bad KB/mcp/grafana not written: the KB "Bad KB" must match [a-z0-9][a-z0-9._-]* (at most 64 bytes), and it names the entry',
      "homelab/mcp/grafana not written: its entry name cartographer-homelab-grafana is a cartographer entry name",
    ]);
  });
});
