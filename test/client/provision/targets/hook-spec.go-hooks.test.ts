/**
 * A Go KB's hooks work here unchanged: hook.json `{event, matcher?, command}` where `command` is
 * a command LINE (Go's internal/provisioning/hooksettings.go; the shapes of its own tests,
 * rewritten). For every hook-capable provider the hooks are rendered, the written file parsed
 * back, and the commands run for real through `sh -c`, as the agent tools run them.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { parse as parseToml } from "smol-toml";
import { describe, expect, it } from "vitest";
import { claude as claudeTarget } from "../../../../src/client/provision/targets/claude.js";
import { codex as codexTarget } from "../../../../src/client/provision/targets/codex.js";
import { opencode as opencodeTarget } from "../../../../src/client/provision/targets/opencode.js";
import { useTempDirs } from "../../../support/temp-dir.js";
import { applyResult } from "./apply.js";
import { artifact, context } from "./artifacts.js";

const sandbox = useTempDirs("carto-tgt-gohooks-");

// The hook script appends its name, its arguments and its stdin to $HOOK_LOG.
const NOTIFY =
  '#!/bin/sh\nprintf "notify %s|" "$*" >> "$HOOK_LOG"\ncat >> "$HOOK_LOG"\necho >> "$HOOK_LOG"\n';
// Committed 100644 in the KB, as Go KBs may (Go writes every hook file but hook.json 0755).
const notify = (json: string, name = "notify") =>
  artifact("hook", name, { "hook.json": json, "notify.sh": NOTIFY });

const IGNORED = ["homelab/hook/env-block: hook.json field(s) ignored: description"];

const GO_HOOKS = [
  notify('{"event":"PostToolUse","matcher":"concept_write","command":"./notify.sh"}'),
  notify('{"event":"SessionStart","command":"./notify.sh --flag \\"two words\\""}', "greet"),
  artifact("hook", "env-block", {
    "hook.json": JSON.stringify({
      event: "PreToolUse",
      matcher: "Edit|Write",
      command: `printf 'bare %s|' "$HOOK_TAG" >> "$HOOK_LOG" && exit 2 || true`,
      description: "a field Go ignores",
    }),
  }),
  notify('{"event":"Stop","command":"$HOOK_BIN/notify.sh from-var"}', "byvar"),
];

function run(command: string, env: Record<string, string>, stdin = "{}"): void {
  try {
    execFileSync("/bin/sh", ["-c", command], {
      env: { ...process.env, ...env },
      input: stdin,
      stdio: ["pipe", "ignore", "ignore"],
    });
  } catch {
    // exit 2 of the blocking hook; the log says what ran
  }
}

describe("Go hook.json, Claude Code", () => {
  it.each(["user", "project"] as const)(
    "%s scope: ./script lines resolve to the installed file, bare and $VAR lines stay verbatim with Go's marker; they run",
    (scope) => {
      const home = sandbox();
      const proj = sandbox();
      const result = claudeTarget.render(GO_HOOKS, context(scope, home, proj));
      expect(result.notes).toEqual(IGNORED);
      applyResult(result);
      const root = join(scope === "user" ? home : proj, ".claude");
      const dir = join(root, "hooks", "cartographer");
      expect(statSync(join(dir, "notify", "notify.sh")).mode & 0o111).not.toBe(0);
      expect(statSync(join(dir, "notify", "hook.json")).mode & 0o111).toBe(0);
      const settings = JSON.parse(readFileSync(join(root, "settings.json"), "utf8"));
      const word = scope === "user" ? dir : `"$CLAUDE_PROJECT_DIR"/.claude/hooks/cartographer`;
      const only = (event: string) => {
        expect(settings.hooks[event]).toHaveLength(1);
        return settings.hooks[event][0];
      };
      expect(only("PostToolUse")).toEqual({
        matcher: "concept_write",
        hooks: [{ type: "command", command: `${word}/notify/notify.sh` }],
      });
      expect(only("SessionStart").hooks[0].command).toBe(
        `${word}/greet/notify.sh --flag "two words"`,
      );
      const bare = only("PreToolUse");
      expect(bare.matcher).toBe("Edit|Write");
      expect(bare.hooks[0].command).toBe(
        `printf 'bare %s|' "$HOOK_TAG" >> "$HOOK_LOG" && exit 2 || true # cartographer-hook: .claude/hooks/cartographer/env-block/`,
      );
      expect(only("Stop").hooks[0].command).toBe(
        "$HOOK_BIN/notify.sh from-var # cartographer-hook: .claude/hooks/cartographer/byvar/",
      );

      // Every line runs as Claude Code runs it (a shell; $VARs are the shell's, not ours).
      const log = join(sandbox(), "log");
      const env = {
        HOOK_LOG: log,
        HOOK_TAG: "t",
        HOOK_BIN: join(dir, "byvar"),
        CLAUDE_PROJECT_DIR: proj,
      };
      for (const event of ["PostToolUse", "SessionStart", "PreToolUse", "Stop"]) {
        run(only(event).hooks[0].command, env, `{"e":"${event}"}`);
      }
      const ran = readFileSync(log, "utf8");
      expect(ran).toContain('notify |{"e":"PostToolUse"}');
      expect(ran).toContain('notify --flag two words|{"e":"SessionStart"}');
      expect(ran).toContain("bare t|");
      expect(ran).toContain('notify from-var|{"e":"Stop"}');

      // Our groups, marked or by path, are ours: read finds all four, removal leaves the user's.
      const section = result.sections.find((s) => s.id === "hooks");
      const user = `${JSON.stringify({ hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "jq . # mine" }] }] } })}\n`;
      const both = section?.write(user, section.desired) ?? "";
      expect(section?.read(both)).toBe(section?.desired);
      expect(JSON.parse(section?.write(both, null) ?? "")).toEqual(JSON.parse(user));
    },
  );
});

describe("Go hook.json, Codex", () => {
  it("every line in the hooks block, parsed back; the bare line marked; they run", () => {
    const home = sandbox();
    const result = codexTarget.render(GO_HOOKS, context("user", home, home));
    expect(result.notes).toEqual(IGNORED);
    applyResult(result);
    const codex = join(home, ".codex");
    const dir = join(codex, "hooks", "cartographer");
    expect(statSync(join(dir, "greet", "notify.sh")).mode & 0o111).not.toBe(0);
    const config = parseToml(readFileSync(join(codex, "config.toml"), "utf8")) as {
      hooks: Record<string, { matcher?: string; hooks: { command: string }[] }[]>;
    };
    const command = (event: string) => {
      expect(config.hooks[event]).toHaveLength(1);
      return config.hooks[event]?.[0]?.hooks[0]?.command ?? "";
    };
    expect(config.hooks.PostToolUse?.[0]?.matcher).toBe("concept_write");
    expect(command("PostToolUse")).toBe(`${dir}/notify/notify.sh`);
    expect(command("SessionStart")).toBe(`${dir}/greet/notify.sh --flag "two words"`);
    expect(command("PreToolUse")).toBe(
      `printf 'bare %s|' "$HOOK_TAG" >> "$HOOK_LOG" && exit 2 || true # cartographer-hook: .codex/hooks/cartographer/env-block/`,
    );
    expect(command("Stop")).toBe(
      "$HOOK_BIN/notify.sh from-var # cartographer-hook: .codex/hooks/cartographer/byvar/",
    );
    const log = join(sandbox(), "log");
    const env = { HOOK_LOG: log, HOOK_TAG: "c", HOOK_BIN: join(dir, "byvar") };
    for (const event of ["PostToolUse", "SessionStart", "PreToolUse", "Stop"]) {
      run(command(event), env);
    }
    const ran = readFileSync(log, "utf8");
    expect(ran).toContain("notify |{}");
    expect(ran).toContain("notify --flag two words|{}");
    expect(ran).toContain("bare c|");
    expect(ran).toContain("notify from-var|{}");
  });
});

describe("Go hook.json, OpenCode plugin", () => {
  it("runs each line with sh -c on the mapped events; Go's matcher finds concept_write in OpenCode's tool name", async () => {
    const home = sandbox();
    const log = join(sandbox(), "log");
    process.env.HOOK_LOG = log;
    process.env.HOOK_TAG = "o";
    try {
      const result = opencodeTarget.render(GO_HOOKS, context("user", home, home));
      expect(result.notes).toEqual(IGNORED);
      applyResult(result);
      const root = join(home, ".config", "opencode");
      expect(
        statSync(join(root, "cartographer", "hooks", "notify", "notify.sh")).mode & 0o111,
      ).not.toBe(0);
      const plugin = join(root, "plugins", "cartographer-hooks.js");
      const source = readFileSync(plugin, "utf8");
      expect(source).toContain(
        JSON.stringify('"$CARTOGRAPHER_HOOK_DIR"/notify.sh --flag "two words"'),
      );
      process.env.HOOK_BIN = join(root, "cartographer", "hooks", "byvar");
      const mod = (await import(pathToFileURL(plugin).href)) as {
        CartographerHooks: (ctx: {
          directory: string;
        }) => Promise<Record<string, (...a: unknown[]) => Promise<void>>>;
      };
      const hooks = await mod.CartographerHooks({ directory: home });
      await hooks.event?.({ event: { type: "session.created" } });
      await hooks["tool.execute.after"]?.({ tool: "cartographer_concept_write" }, { output: "ok" });
      await hooks["tool.execute.after"]?.({ tool: "read" }, { output: "no" }); // not matched
      await expect(
        hooks["tool.execute.before"]?.({ tool: "write" }, { args: { filePath: "x" } }),
      ).rejects.toThrow(/blocked by hook homelab\/env-block/);
      await hooks.event?.({ event: { type: "session.idle" } });
      const ran = readFileSync(log, "utf8");
      expect(ran).toContain("notify --flag two words|");
      expect(ran).toContain('"tool_name":"cartographer_concept_write"');
      expect(ran).not.toContain('"tool_response":"no"');
      expect(ran).toContain("bare o|");
      expect(ran).toContain("notify from-var|");
      expect(existsSync(join(root, "cartographer", "hooks", "env-block", "hook.json"))).toBe(true);
    } finally {
      delete process.env.HOOK_LOG;
      delete process.env.HOOK_TAG;
      delete process.env.HOOK_BIN;
    }
  });
});

describe("Go hook.json, what stays refused", () => {
  it("a multi-line command, a trailing backslash, a ./path that is not a file of the hook; a bare name that is one gets a note", () => {
    const home = sandbox();
    const bad = (name: string, command: string) =>
      notify(JSON.stringify({ event: "Stop", command }), name);
    const result = claudeTarget.render(
      [
        bad("newline", "./notify.sh\nrm -rf ~"),
        bad("cr", "./notify.sh\rx"),
        bad("backslash", "./notify.sh \\"),
        bad("missing", "./other.sh"),
        bad("up", "../notify.sh"),
        bad("onpath", "notify.sh --x"),
      ],
      context("user", home, home),
    );
    expect(result.notes).toEqual([
      'homelab/hook/backslash not written: hook.json "command" must not end with a backslash',
      'homelab/hook/cr not written: hook.json "command" must be one line (no NUL, CR or LF)',
      'homelab/hook/missing not written: hook.json "command" runs ./other.sh, which is not a script of the hook',
      'homelab/hook/newline not written: hook.json "command" must be one line (no NUL, CR or LF)',
      'homelab/hook/onpath: hook.json "command" starts with notify.sh, which runs from PATH; write ./notify.sh to run the hook\'s own file',
      expect.stringMatching(/^homelab\/hook\/up not written: hook\.json "command": /),
    ]);
    const settings = result.sections[0];
    expect(JSON.parse(settings?.desired ?? "{}").Stop).toEqual([
      {
        hooks: [
          {
            type: "command",
            command: "notify.sh --x # cartographer-hook: .claude/hooks/cartographer/onpath/",
          },
        ],
      },
    ]);
  });
});
