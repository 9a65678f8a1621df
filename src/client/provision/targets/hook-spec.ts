/**
 * A KB hook (`hooks/<name>/hook.json` + scripts), read the same way for every provider (pure).
 *
 *   { "event": "PostToolUse", "command": "fmt.sh", "args": ["--check"],
 *     "matcher": "Edit|Write", "timeout": 30 }
 *
 * - `event`: a Claude Code hook event name (the vocabulary Codex adopted too); each target says
 *   which events it can run and notes the others.
 * - `command`: a file of the hook folder (`./` optional), executable in the KB (mode 100755).
 *   Only the hook's own script can run: never a shell line from the KB, and `args` are quoted.
 * - `matcher` (tool-name pattern, tool events only) and `timeout` (seconds, 1–600) are optional.
 *
 * The server only checks that hook.json is a JSON object (docs/provisioning.md); this shape is
 * the client's (docs/decisions.md).
 */
import type { Artifact } from "../types.js";
import { unsafePath } from "./checks.js";

export const HOOK_EVENTS = [
  "SessionStart",
  "SessionEnd",
  "UserPromptSubmit",
  "PreToolUse",
  "PostToolUse",
  "Stop",
  "SubagentStop",
  "PreCompact",
  "Notification",
] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];

export interface HookSpec {
  event: HookEvent;
  /** The script's path inside the hook folder, normalized (`run.sh`, `bin/fmt.sh`). */
  script: string;
  args: string[];
  matcher?: string;
  timeout?: number;
}

const FIELDS = ["event", "command", "args", "matcher", "timeout"];

/** The hook's spec, or `{ error }` naming what is wrong with its hook.json. */
export function parseHookSpec(a: Artifact): HookSpec | { error: string } {
  const file = a.files.find((f) => f.path === "hook.json");
  if (!file) return { error: "hook.json is missing" };
  let raw: unknown;
  try {
    raw = JSON.parse(file.bytes.toString("utf8"));
  } catch {
    return { error: "hook.json is not valid JSON" };
  }
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
    return { error: "hook.json is not a JSON object" };
  }
  const o = raw as Record<string, unknown>;
  const unknown = Object.keys(o).filter((k) => !FIELDS.includes(k));
  if (unknown.length > 0) return { error: `hook.json has unknown field(s): ${unknown.join(", ")}` };
  if (typeof o.event !== "string" || !(HOOK_EVENTS as readonly string[]).includes(o.event)) {
    return { error: `hook.json "event" must be one of ${HOOK_EVENTS.join(", ")}` };
  }
  if (typeof o.command !== "string") return { error: 'hook.json "command" must be a string' };
  const script = o.command.startsWith("./") ? o.command.slice(2) : o.command;
  const bad = unsafePath(script);
  if (bad) return { error: `hook.json "command": ${bad}` };
  const target = a.files.find((f) => f.path === script);
  if (!target)
    return { error: `hook.json "command" names ${script}, which is not a file of the hook` };
  if (!target.executable)
    return { error: `${script} is not executable in the KB (git mode 100755)` };
  const args = o.args ?? [];
  if (!Array.isArray(args) || args.some((x) => typeof x !== "string" || /[\0\n\r]/.test(x))) {
    return { error: 'hook.json "args" must be a list of one-line strings' };
  }
  if (o.matcher !== undefined && (typeof o.matcher !== "string" || /[\0\n\r]/.test(o.matcher))) {
    return { error: 'hook.json "matcher" must be a one-line string' };
  }
  const t = o.timeout;
  if (t !== undefined && (typeof t !== "number" || !Number.isInteger(t) || t < 1 || t > 600)) {
    return { error: 'hook.json "timeout" must be a whole number of seconds from 1 to 600' };
  }
  return {
    event: o.event as HookEvent,
    script,
    args: args as string[],
    ...(typeof o.matcher === "string" && o.matcher !== "" ? { matcher: o.matcher } : {}),
    ...(typeof t === "number" ? { timeout: t } : {}),
  };
}

/** POSIX shell single-quoting: the value reaches the program as one argument, never as syntax. */
export function shellQuote(value: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

/**
 * The command line that runs a hook script at `dirExpr/<script>` with its args. `dirExpr` is a
 * shell word for the hook's folder: an absolute path (quoted here) or `"$CLAUDE_PROJECT_DIR"/…`
 * already quoted by the caller.
 */
export function hookCommand(dirWord: string, spec: HookSpec): string {
  return [`${dirWord}/${shellQuote(spec.script)}`, ...spec.args.map(shellQuote)].join(" ");
}

/** The bootstrap hook's line: `cartographer sync`, quietly, only when the binary is on PATH. */
export const BOOTSTRAP_COMMAND =
  "command -v cartographer >/dev/null 2>&1 && cartographer sync >/dev/null 2>&1 || true";

/** The bootstrap hook as a script file, so it is ours by path like every other managed hook. */
export const BOOTSTRAP_SCRIPT = `#!/bin/sh\n# Written by cartographer (--bootstrap-hook): keeps the KB's skills, agents and hooks in sync.\n${BOOTSTRAP_COMMAND}\n`;
