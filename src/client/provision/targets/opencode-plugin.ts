/**
 * The OpenCode plugin that runs the KB hooks (pure: it renders source text). OpenCode loads
 * every .js file of its plugins folder (opencode.ai/docs/plugins); this one maps the hook events
 * to plugin hooks and runs each hook's script with `spawnSync` — argv, no shell — passing a
 * Claude-style JSON payload on stdin. A PreToolUse script that exits 2 blocks the tool call
 * (the plugin throws, which is how an OpenCode plugin refuses a tool). Script paths are resolved
 * from the plugin file itself, so the same file works in `~/.config/opencode` and a project.
 */
import type { HookEvent } from "./hook-spec.js";

/** Hook event → where the plugin hears it. */
export const OPENCODE_EVENTS: Partial<Record<HookEvent, string>> = {
  SessionStart: "session.created",
  PreToolUse: "tool.execute.before",
  PostToolUse: "tool.execute.after",
  Stop: "session.idle",
};

export interface PluginHook {
  name: string;
  event: HookEvent;
  matcher?: string;
  /** Script path relative to the plugin file, then its arguments. */
  argv: string[];
  timeout?: number;
}

export function opencodePluginSource(hooks: PluginHook[]): string {
  return `// Written by cartographer sync from the knowledge bases' hooks; edits are replaced on sync.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const HOOKS = ${JSON.stringify(hooks, null, 2)};

function matches(hook, tool) {
  if (!hook.matcher) return true;
  try {
    return new RegExp(\`^(?:\${hook.matcher})$\`, "i").test(tool);
  } catch {
    return false;
  }
}

function run(hook, payload, cwd) {
  const [script, ...args] = hook.argv;
  return spawnSync(fileURLToPath(new URL(script, import.meta.url)), args, {
    cwd,
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
