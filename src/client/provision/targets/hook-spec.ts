/**
 * A KB hook (`hooks/<name>/hook.json` + scripts), read the same way for every provider (pure).
 * The format is the Go implementation's (internal/provisioning/hooksettings.go), so a Go KB's
 * hooks work unchanged, plus two optional extensions of ours:
 *
 *   { "event": "PostToolUse", "matcher": "Edit|Write", "command": "./fmt.sh --check" }
 *   { "event": "PreToolUse", "command": "jq -e '.tool_input.x' >/dev/null && exit 2 || true" }
 *   + ours: "args": ["a b"] (appended, shell-quoted), "timeout": 30 (seconds, 1–600)
 *
 * - `event`: an event name (PascalCase); each target says which events its tool runs and notes
 *   the others.
 * - `command`: a command LINE, run by the agent tool's shell (Claude Code, Codex; `sh -c` in the
 *   OpenCode plugin). Its leading token (up to the first space, Go's split) is resolved like Go
 *   resolves it: a relative path (it holds a `/`, e.g. `./notify.sh`, `bin/run.sh`) is a file of
 *   the hook folder and is replaced by that file's installed path; an absolute path, a `$VAR`
 *   reference or a bare name (looked up on PATH, e.g. `jq`) is left as written. The rest of the
 *   line is kept verbatim. We never expand `${VAR}` in it: the agent tool's shell does, at run
 *   time. A line with a NUL, CR or LF, or ending in `\`, is refused (docs/decisions.md).
 * - `matcher` (tool-name pattern) is optional; unknown fields are ignored, as Go ignores them,
 *   and reported in a note.
 *
 * Trust is the boundary, not the line's syntax: a hook is rendered only once the trust gate has
 * accepted the KB's artifact (signature or consent), and its scripts are code anyway.
 */
import type { Artifact } from "../types.js";
import { unsafePath } from "./checks.js";

export interface HookSpec {
  event: string;
  /**
   * The hook-folder file the leading token names (`notify.sh`, `bin/fmt.sh`), normalized; absent
   * when the line starts with a bare name, an absolute path or a `$VAR`.
   */
  script?: string;
  /** The line after its leading token (`""` or `" --flag …"`), or the whole line without a script. */
  rest: string;
  args: string[];
  matcher?: string;
  timeout?: number;
  /** Things the author should fix that do not stop the hook (ignored fields, a likely mistake). */
  warnings: string[];
}

const EVENT = /^[A-Z][A-Za-z]{1,63}$/;
const OURS = ["event", "command", "matcher", "args", "timeout"];

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
    return { error: "hook.json must hold a JSON object" };
  }
  const o = raw as Record<string, unknown>;
  const warnings: string[] = [];
  const unknown = Object.keys(o).filter((k) => !OURS.includes(k));
  if (unknown.length > 0) warnings.push(`hook.json field(s) ignored: ${unknown.join(", ")}`);
  if (typeof o.event !== "string" || !EVENT.test(o.event)) {
    return { error: 'hook.json "event" must be an event name such as PostToolUse' };
  }
  if (typeof o.command !== "string" || o.command.trim() === "") {
    return { error: 'hook.json "command" must be a non-empty command line' };
  }
  const line = o.command.trim();
  if (/[\0\n\r]/.test(line)) {
    return { error: 'hook.json "command" must be one line (no NUL, CR or LF)' };
  }
  if (line.endsWith("\\")) {
    return { error: 'hook.json "command" must not end with a backslash' };
  }
  const cut = line.indexOf(" ");
  const lead = cut < 0 ? line : line.slice(0, cut);
  const after = cut < 0 ? "" : line.slice(cut);
  let script: string | undefined;
  if (lead.includes("/") && !lead.startsWith("/") && !lead.startsWith("$")) {
    script = lead.replace(/^(\.\/)+/, "");
    const bad = unsafePath(script);
    if (bad) return { error: `hook.json "command": ${bad}` };
    if (script === "hook.json" || !a.files.some((f) => f.path === script)) {
      return { error: `hook.json "command" runs ${lead}, which is not a script of the hook` };
    }
  } else if (a.files.some((f) => f.path === lead && f.path !== "hook.json")) {
    warnings.push(
      `hook.json "command" starts with ${lead}, which runs from PATH; write ./${lead} to run the hook's own file`,
    );
  }
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
    event: o.event,
    ...(script !== undefined ? { script, rest: after } : { rest: line }),
    args: args as string[],
    ...(typeof o.matcher === "string" && o.matcher !== "" ? { matcher: o.matcher } : {}),
    ...(typeof t === "number" ? { timeout: t } : {}),
    warnings,
  };
}

/** POSIX shell single-quoting: the value reaches the program as one argument, never as syntax. */
export function shellQuote(value: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

/**
 * The command line the agent tool runs: the hook's line with a hook-folder script replaced by
 * `dirWord/<script>`, then `args` quoted. `dirWord` is a shell word for the installed hook folder:
 * an absolute path (quoted here) or `"$CLAUDE_PROJECT_DIR"/…` already quoted by the caller.
 */
export function hookCommand(dirWord: string, spec: HookSpec): string {
  const head = spec.script !== undefined ? `${dirWord}/${shellQuote(spec.script)}` : "";
  return [`${head}${spec.rest}`, ...spec.args.map(shellQuote)].join(" ");
}

/**
 * The inert trailing comment that marks a command line as ours when it does not start with our
 * hook folder (a bare `jq …` line): Go's D57 marker, naming our folder. `tool` is `.claude` or
 * `.codex`.
 */
export function hookMarker(tool: string, name: string): string {
  return ` # cartographer-hook: ${tool}/hooks/cartographer/${name}/`;
}

/** True when `command` ends with a marker of ours (any hook name) for `tool`. */
export function hasHookMarker(tool: string, command: string): boolean {
  const t = tool.replace(/\./g, "\\.");
  return new RegExp(` # cartographer-hook: ${t}/hooks/cartographer/[a-z0-9][a-z0-9._-]*/$`).test(
    command,
  );
}

/** The bootstrap hook's line: `cartographer sync`, quietly, only when the binary is on PATH. */
export const BOOTSTRAP_COMMAND =
  "command -v cartographer >/dev/null 2>&1 && cartographer sync >/dev/null 2>&1 || true";

/** The bootstrap hook as a script file, so it is ours by path like every other managed hook. */
export const BOOTSTRAP_SCRIPT = `#!/bin/sh\n# Written by cartographer (--bootstrap-hook): keeps the KB's skills, agents and hooks in sync.\n${BOOTSTRAP_COMMAND}\n`;
