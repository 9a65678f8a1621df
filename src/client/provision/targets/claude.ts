/**
 * Claude Code (code.claude.com/docs/en/skills, /sub-agents, /hooks, /mcp). Root `~/.claude`
 * (user) or `<project>/.claude` (project):
 * - skill `<root>/skills/<name>/` (every file, executable bits kept);
 * - agent `<root>/agents/<name>.md`, the KB file byte for byte (same format);
 * - hook: its folder under `<root>/hooks/cartographer/<name>/` (every file but hook.json
 *   executable, Go's floor), registered in `<root>/settings.json` `hooks.<Event>[]` as a group
 *   running the hook's command line (hook-spec.ts). A line that starts with the hook's own script
 *   starts with our folder's path, which marks it ours; any other line (a bare `jq …`) gets Go's
 *   inert marker comment ` # cartographer-hook: .claude/hooks/cartographer/<name>/` (Claude Code
 *   validates settings, so no extra key is written). In a project the path starts
 *   `"$CLAUDE_PROJECT_DIR"/.claude/…` so a committed settings.json works in every checkout;
 * - bootstrap hook: `<root>/hooks/cartographer/_bootstrap.sh`, a SessionStart (`startup`) group;
 * - mcp: entry `<server>-<kb>-<name>` in `~/.claude.json` / `<project>/.mcp.json` `mcpServers`,
 *   `${VAR}` kept (Claude Code expands it itself);
 * - instructions: carried by the instructions block (CLAUDE.md), nothing here.
 */
import path from "node:path";
import { namingParts, sanitize, WORD_OR_DASH } from "../../tool-names.js";
import type { Artifact, ManagedSection, RenderContext } from "../types.js";
import { checkArtifacts, originOf } from "./checks.js";
import { BOOTSTRAP_ORIGIN, folderFiles, generatedFile, hookFiles, ofKind } from "./common.js";
import {
  BOOTSTRAP_SCRIPT,
  hookCommand,
  hookMarker,
  parseHookSpec,
  shellQuote,
} from "./hook-spec.js";
import { jsonProvider } from "./json-entry.js";
import { claudeHooksSection, type HookGroup, mcpServersSections } from "./json-sections.js";
import { type McpEntry, mcpEntries } from "./mcp-entry.js";
import type { Provider } from "./provider.js";

/** The hook events Claude Code documents (code.claude.com/docs/en/hooks); others are noted. */
export const CLAUDE_EVENTS: readonly string[] = [
  "SessionStart",
  "Setup",
  "InstructionsLoaded",
  "UserPromptSubmit",
  "UserPromptExpansion",
  "PreToolUse",
  "PermissionRequest",
  "PermissionDenied",
  "PostToolUse",
  "PostToolUseFailure",
  "PostToolBatch",
  "SubagentStart",
  "SubagentStop",
  "TaskCreated",
  "TaskCompleted",
  "Stop",
  "StopFailure",
  "TeammateIdle",
  "PreCompact",
  "PostCompact",
  "SessionEnd",
  "Elicitation",
  "ElicitationResult",
  "WorktreeCreate",
  "WorktreeRemove",
  "Notification",
  "ConfigChange",
  "CwdChanged",
  "FileChanged",
];

function layout(ctx: RenderContext) {
  const base = ctx.scope === "user" ? ctx.home : ctx.projectDir;
  const root = path.join(base, ".claude");
  const hooksDir = path.join(root, "hooks", "cartographer");
  return {
    root,
    hooksDir,
    // The shell word for hooksDir inside a hook command.
    hooksWord:
      ctx.scope === "user"
        ? shellQuote(hooksDir)
        : `"$CLAUDE_PROJECT_DIR"/.claude/hooks/cartographer`,
    settings: path.join(root, "settings.json"),
    mcpFile:
      ctx.scope === "user"
        ? path.join(ctx.home, ".claude.json")
        : path.join(ctx.projectDir, ".mcp.json"),
  };
}

/**
 * The entry Claude Code reads: the descriptor itself (`type`, `url`/`command`, `${VAR}` kept,
 * Claude Code expands it anywhere in a value). An http descriptor's `env` is left out, as Go
 * leaves it out: an http server has no environment of ours to receive it.
 */
function claudeEntry(e: McpEntry): Record<string, unknown> {
  const d = e.descriptor;
  if (d.type === "http") {
    return { type: "http", url: d.url, ...(d.headers ? { headers: d.headers } : {}) };
  }
  return { ...d };
}

function render(artifacts: readonly Artifact[], ctx: RenderContext) {
  const l = layout(ctx);
  const checked = checkArtifacts(artifacts);
  const notes = [...checked.notes];
  const files = [];
  for (const a of ofKind(checked.artifacts, "skill")) {
    files.push(...folderFiles(a, path.join(l.root, "skills", a.name)));
  }
  for (const a of ofKind(checked.artifacts, "agent")) {
    files.push(...folderFiles(a, path.join(l.root, "agents"))); // the one file, <name>.md
  }
  const groups: Record<string, HookGroup[]> = {};
  const hookOrigins: string[] = [];
  if (ctx.bootstrapHook) {
    files.push(
      generatedFile(
        path.join(l.hooksDir, "_bootstrap.sh"),
        BOOTSTRAP_SCRIPT,
        BOOTSTRAP_ORIGIN,
        true,
      ),
    );
    groups.SessionStart = [
      { matcher: "startup", hooks: [{ type: "command", command: `${l.hooksWord}/_bootstrap.sh` }] },
    ];
    hookOrigins.push(BOOTSTRAP_ORIGIN);
  }
  for (const a of ofKind(checked.artifacts, "hook")) {
    const spec = parseHookSpec(a);
    if ("error" in spec) {
      notes.push(`${a.kb}/hook/${a.name} not written: ${spec.error}`);
      continue;
    }
    if (!CLAUDE_EVENTS.includes(spec.event)) {
      notes.push(
        `${a.kb}/hook/${a.name} not written for Claude Code: Claude Code has no ${spec.event} hook event`,
      );
      continue;
    }
    notes.push(...spec.warnings.map((w) => `${a.kb}/hook/${a.name}: ${w}`));
    files.push(...hookFiles(a, path.join(l.hooksDir, a.name)));
    let command = hookCommand(`${l.hooksWord}/${a.name}`, spec);
    if (!command.startsWith(`${l.hooksWord}/`)) command += hookMarker(".claude", a.name);
    const group = {
      ...(spec.matcher ? { matcher: spec.matcher } : {}),
      hooks: [
        {
          type: "command",
          command,
          ...(spec.timeout ? { timeout: spec.timeout } : {}),
        },
      ],
    };
    groups[spec.event] = [...(groups[spec.event] ?? []), group];
    hookOrigins.push(originOf(a));
  }
  const sections: ManagedSection[] = [
    claudeHooksSection({
      file: l.settings,
      ownPrefix: `${l.hooksWord}/`,
      ownMarkerTool: ".claude",
      desired: hookOrigins.length > 0 ? sortedEvents(groups) : null,
      origins: hookOrigins,
    }),
  ];
  const mcp = mcpEntries(checked.artifacts, ctx.serverName);
  notes.push(...mcp.notes);
  sections.push(
    ...mcpServersSections(
      l.mcpFile,
      mcp.entries.map((e) => ({
        entry: e.entry,
        desired: claudeEntry(e),
        origin: originOf(e.artifact),
      })),
      ctx.ownedSections,
    ),
  );
  return { roots: [l.root, l.mcpFile], files, sections, notes };
}

function sortedEvents(groups: Record<string, HookGroup[]>): Record<string, HookGroup[]> {
  const out: Record<string, HookGroup[]> = {};
  for (const k of Object.keys(groups).sort()) out[k] = groups[k] as HookGroup[];
  return out;
}

const toolName = (server: string, tool: string) =>
  `mcp__${sanitize(server, WORD_OR_DASH)}__${sanitize(tool, WORD_OR_DASH)}`;

/**
 * Claude Code's connect side. User scope: `~/.claude.json` `mcpServers`; project scope:
 * `.mcp.json`. HTTP entry `{type: "http", url, headers}`; Claude Code expands `${VAR}` in `url`
 * and `headers`, so the token is referenced, never written. Instructions: `~/.claude/CLAUDE.md`
 * (user) or `CLAUDE.md` (project). Checked against the Claude Code MCP docs (docs corpus).
 */
export const claude: Provider = {
  ...jsonProvider({
    id: "claude",
    label: "Claude Code",
    referencesEnv: true,
    containerKey: "mcpServers",
    urlField: "url",
    userFiles: (home) => ({
      config: path.join(home, ".claude.json"),
      instructions: path.join(home, ".claude", "CLAUDE.md"),
    }),
    projectFiles: (cwd) => ({
      config: path.join(cwd, ".mcp.json"),
      instructions: path.join(cwd, "CLAUDE.md"),
    }),
    render: (url, auth) => ({
      type: "http",
      url,
      ...(auth.tokenEnv ? { headers: { Authorization: `Bearer \${${auth.tokenEnv}}` } } : {}),
    }),
  }),
  render,
  flatNamespace: false,
  toolName,
  namingSentence(server, example) {
    const { pattern, full } = namingParts(toolName, server, example);
    return `In Claude Code its tools are named ${pattern}, e.g. ${full}.`;
  },
  probes: { bins: ["claude"], dirs: (h) => [path.join(h, ".claude")] },
};
