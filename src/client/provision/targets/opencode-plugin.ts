/**
 * The OpenCode plugin that runs the KB hooks (pure: it renders source text). OpenCode loads
 * every .js file of its plugins folder (opencode.ai/docs/plugins); this one maps the hook events
 * to plugin hooks and runs each hook's command line the way Claude Code and Codex run it: with
 * `/bin/sh -c <line>` (as Go's generated plugin does), the line passed as one argv element and
 * held as JSON data in the file, never spliced into code. A Claude-style JSON payload goes on
 * stdin; a PreToolUse hook that exits 2 blocks the tool call (the plugin throws, which is how an
 * OpenCode plugin refuses a tool). `$CARTOGRAPHER_HOOK_DIR` is the hook's installed folder,
 * resolved from the plugin file itself, so the same file works in `~/.config/opencode` and a
 * project. A matcher matches as Go's plugin matches (case-insensitive `|` tokens, substring
 * either way: OpenCode's tool names are not Claude Code's) or as a case-insensitive regex.
 */
/** Hook event → where the plugin hears it. */
export const OPENCODE_EVENTS: Readonly<Record<string, string>> = {
  SessionStart: "session.created",
  PreToolUse: "tool.execute.before",
  PostToolUse: "tool.execute.after",
  Stop: "session.idle",
};

/** The shell word a plugin hook's line uses for its installed folder. */
export const PLUGIN_HOOK_DIR_WORD = '"$CARTOGRAPHER_HOOK_DIR"';

export interface PluginHook {
  name: string;
  event: string;
  matcher?: string;
  /** The hook's folder relative to the plugin file (`../cartographer/hooks/<name>`). */
  dir: string;
  /** The command line, its own scripts under `"$CARTOGRAPHER_HOOK_DIR"`. */
  line: string;
  timeout?: number;
}

export function opencodePluginSource(hooks: PluginHook[]): string {
  return `// Written by cartographer sync from the knowledge bases' hooks; edits are replaced on sync.
import { spawnSync } from "node:child_process";
import { env } from "node:process";
import { fileURLToPath } from "node:url";

const HOOKS = ${JSON.stringify(hooks, null, 2)};

function matches(hook, tool) {
  const matcher = hook.matcher;
  if (!matcher || matcher === "*") return true;
  const name = String(tool || "").toLowerCase();
  if (name === "") return false;
  const tokens = matcher.split("|").map((t) => t.trim().toLowerCase()).filter(Boolean);
  if (tokens.some((t) => name.includes(t) || t.includes(name))) return true;
  try {
    return new RegExp(matcher, "i").test(name);
  } catch {
    return false;
  }
}

function run(hook, payload, cwd) {
  const dir = fileURLToPath(new URL(hook.dir, import.meta.url));
  return spawnSync("/bin/sh", ["-c", hook.line], {
    cwd,
    env: { ...env, CARTOGRAPHER_HOOK_DIR: dir },
    input: JSON.stringify(payload),
    encoding: "utf8",
    timeout: (hook.timeout ?? 60) * 1000,
  });
}

function each(event, tool, payload, cwd) {
  const results = [];
  for (const hook of HOOKS) {
    if (hook.event !== event || (tool !== undefined && !matches(hook, tool))) continue;
    results.push([hook, run(hook, { hook_event_name: event, cwd, ...payload }, cwd)]);
  }
  return results;
}

export const CartographerHooks = async ({ directory }) => ({
  "tool.execute.before": async (input, output) => {
    for (const [hook, r] of each("PreToolUse", input.tool, { tool_name: input.tool, tool_input: output.args }, directory)) {
      if (r.status === 2) throw new Error((r.stderr || "").trim() || \`blocked by hook \${hook.name}\`);
    }
  },
  "tool.execute.after": async (input, output) => {
    each("PostToolUse", input.tool, { tool_name: input.tool, tool_response: output.output }, directory);
  },
  event: async ({ event }) => {
    if (event.type === "session.created") each("SessionStart", undefined, { source: "startup" }, directory);
    if (event.type === "session.idle") each("Stop", undefined, {}, directory);
  },
});
`;
}
