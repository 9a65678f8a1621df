/**
 * Codex CLI (developers.openai.com/codex/skills, /subagents, /hooks, /mcp). `<codex>` is
 * `$CODEX_HOME` (default `~/.codex`, read from ctx.env) for the user scope, `<project>/.codex`
 * for the project scope (read by Codex only in a trusted project, see codex-trust.ts):
 * - skill `~/.agents/skills/<name>/` / `<project>/.agents/skills/<name>/` — where the Codex
 *   docs put user and repository skills (Codex 0.171.0 still also reads `<codex>/skills`);
 * - agent `<codex>/agents/<name>.toml`: the KB's Markdown agent converted to the custom-agent
 *   shape Codex documents (`name`, `description`, `developer_instructions` = the body);
 *   Claude-only fields (`tools`, `model`, …) have no Codex meaning and are left out;
 * - hook: its folder under `<codex>/hooks/cartographer/<name>/` (every file but hook.json
 *   executable, Go's floor), registered in a marked block of `<codex>/config.toml` as
 *   `[[hooks.<Event>]]` + `[[hooks.<Event>.hooks]]` running the hook's command line (hook-spec.ts;
 *   a script of the hook by its absolute path, a bare line marked with Go's inert comment);
 *   Codex runs a new command hook only after the user trusts it (`/hooks`); the groups are ours
 *   by identity, so a config.toml Codex re-serialized without our markers stays in sync
 *   (codex-hooks.ts);
 * - mcp: `[mcp_servers.<server>-<kb>-<name>]` in `<codex>/config.toml`; a `${VAR}` reference
 *   becomes `bearer_token_env_var` / `env_http_headers` / `env_vars` (Codex reads the variable
 *   itself), never a value;
 * - instructions: carried by the instructions block (AGENTS.md), nothing here.
 */
import path from "node:path";
import { codexHome } from "../../codex-trust.js";
import { namingParts, sanitize, WORD } from "../../tool-names.js";
import type { Artifact, ManagedSection, RenderContext } from "../types.js";
import { agentFrontmatterOf, checkArtifacts, originOf } from "./checks.js";
import { codexEntry } from "./codex-entry.js";
import { type CodexHookGroup, codexHooksSection } from "./codex-hooks.js";
import {
  BOOTSTRAP_ORIGIN,
  folderFiles,
  generatedFile,
  hookFiles,
  ofKind,
  staleSections,
} from "./common.js";
import { stringField } from "./frontmatter.js";
import {
  BOOTSTRAP_SCRIPT,
  hookCommand,
  hookMarker,
  parseHookSpec,
  shellQuote,
} from "./hook-spec.js";
import { type McpEntry, mcpEntries, varRef } from "./mcp-entry.js";
import type { Provider } from "./provider.js";
import { codexMcpSection } from "./toml-sections.js";
import { tomlString } from "./toml-tables.js";

/** The hook events Codex documents (SessionEnd and Notification have no Codex counterpart). */
const CODEX_EVENTS: readonly string[] = [
  "SessionStart",
  "UserPromptSubmit",
  "PreToolUse",
  "PostToolUse",
  "Stop",
  "SubagentStop",
  "PreCompact",
];

function layout(ctx: RenderContext) {
  const codex =
    ctx.scope === "user" ? codexHome(ctx.home, ctx.env) : path.join(ctx.projectDir, ".codex");
  const skills = path.join(ctx.scope === "user" ? ctx.home : ctx.projectDir, ".agents", "skills");
  return {
    codex,
    skills,
    hooksDir: path.join(codex, "hooks", "cartographer"),
    config: path.join(codex, "config.toml"),
  };
}

/**
 * A TOML multi-line literal string (`'''…'''`, read as is, so the instructions stay readable in
 * the file) when the text allows one, else a basic string with escapes.
 */
function tomlMultiline(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: these are what a literal string cannot hold
  const literalOk = !text.includes("'''") && !/[\u0000-\u0008\u000b-\u001f\u007f]/.test(text);
  return literalOk ? `'''\n${text}'''` : tomlString(text);
}

/** The custom-agent TOML, or `{ error }` when the KB agent lacks what Codex requires. */
export function codexAgentToml(a: Artifact): string | { error: string } {
  const fm = agentFrontmatterOf(a);
  if ("error" in fm) return fm;
  const description = stringField(fm.data, "description");
  if (!description) return { error: "Codex needs a description (frontmatter `description`)" };
  const body = fm.body.trim();
  if (body === "") return { error: "Codex needs instructions (the Markdown body is empty)" };
  return [
    `# Written by cartographer from the KB ${a.kb} agent ${a.name}; edits are replaced on sync.`,
    `name = ${tomlString(a.name)}`,
    `description = ${tomlString(description)}`,
    `developer_instructions = ${tomlMultiline(`${body}\n`)}`,
    "",
  ].join("\n");
}

/** The `[mcp_servers.<entry>]` keys, or `{ error }` when a reference has no Codex form. */
export function codexMcpEntry(e: McpEntry): Record<string, unknown> | { error: string } {
  const d = e.descriptor;
  if (d.type === "http") {
    const out: Record<string, unknown> = { url: d.url };
    const envHeaders: Record<string, string> = {};
    for (const [header, value] of Object.entries(d.headers ?? {})) {
      const ref = varRef(value);
      if (ref?.bearer && header.toLowerCase() === "authorization")
        out.bearer_token_env_var = ref.name;
      else if (ref && !ref.bearer) envHeaders[header] = ref.name;
      else
        return {
          error: `Codex cannot send header ${header} as "Bearer \${VAR}" (only Authorization)`,
        };
    }
    if (Object.keys(envHeaders).length > 0) out.env_http_headers = envHeaders;
    return out;
  }
  const out: Record<string, unknown> = { command: d.command };
  if (d.args && d.args.length > 0) out.args = d.args;
  const vars: string[] = [];
  for (const [key, value] of Object.entries(d.env ?? {})) {
    const ref = varRef(value);
    if (!ref || ref.bearer || ref.name !== key) {
      return { error: `Codex passes variables through under their own name only (env ${key})` };
    }
    vars.push(ref.name);
  }
  if (vars.length > 0) out.env_vars = vars;
  return out;
}

function render(artifacts: readonly Artifact[], ctx: RenderContext) {
  const l = layout(ctx);
  const checked = checkArtifacts(artifacts);
  const notes = [...checked.notes];
  const files = [];
  for (const a of ofKind(checked.artifacts, "skill"))
    files.push(...folderFiles(a, path.join(l.skills, a.name)));
  for (const a of ofKind(checked.artifacts, "agent")) {
    const toml = codexAgentToml(a);
    if (typeof toml !== "string")
      notes.push(`${a.kb}/agent/${a.name} not written for Codex: ${toml.error}`);
    else
      files.push(generatedFile(path.join(l.codex, "agents", `${a.name}.toml`), toml, originOf(a)));
  }
  const groups: Record<string, CodexHookGroup[]> = {};
  const add = (event: string, g: CodexHookGroup) => {
    groups[event] = [...(groups[event] ?? []), g];
  };
  const hookOrigins: string[] = [];
  const word = shellQuote(l.hooksDir);
  if (ctx.bootstrapHook) {
    files.push(
      generatedFile(
        path.join(l.hooksDir, "_bootstrap.sh"),
        BOOTSTRAP_SCRIPT,
        BOOTSTRAP_ORIGIN,
        true,
      ),
    );
    add("SessionStart", {
      matcher: "startup",
      hooks: [{ type: "command", command: `${word}/_bootstrap.sh` }],
    });
    hookOrigins.push(BOOTSTRAP_ORIGIN);
  }
  for (const a of ofKind(checked.artifacts, "hook")) {
    const spec = parseHookSpec(a);
    if ("error" in spec) {
      notes.push(`${a.kb}/hook/${a.name} not written: ${spec.error}`);
      continue;
    }
    if (!CODEX_EVENTS.includes(spec.event)) {
      notes.push(
        `${a.kb}/hook/${a.name} not written for Codex: Codex has no ${spec.event} hook event`,
      );
      continue;
    }
    notes.push(...spec.warnings.map((w) => `${a.kb}/hook/${a.name}: ${w}`));
    files.push(...hookFiles(a, path.join(l.hooksDir, a.name)));
    let command = hookCommand(`${word}/${a.name}`, spec);
    if (!command.startsWith(`${word}/`)) command += hookMarker(".codex", a.name);
    add(spec.event, {
      ...(spec.matcher ? { matcher: spec.matcher } : {}),
      hooks: [{ type: "command", command, ...(spec.timeout ? { timeout: spec.timeout } : {}) }],
    });
    hookOrigins.push(originOf(a));
  }
  const sections: ManagedSection[] = [
    codexHooksSection({
      file: l.config,
      begin: `# BEGIN cartographer:${ctx.serverName} hooks (managed by cartographer sync; edits inside are replaced)`,
      end: `# END cartographer:${ctx.serverName} hooks`,
      ownPrefix: `${word}/`,
      desired: hookOrigins.length > 0 ? groups : null,
      origins: hookOrigins,
    }),
  ];
  const mcp = mcpEntries(checked.artifacts, ctx.serverName);
  notes.push(...mcp.notes);
  for (const e of mcp.entries) {
    const entry = codexMcpEntry(e);
    if ("error" in entry) {
      notes.push(`${e.artifact.kb}/mcp/${e.artifact.name} not written for Codex: ${entry.error}`);
      continue;
    }
    sections.push(
      codexMcpSection({
        file: l.config,
        entry: e.entry,
        desired: entry,
        origins: [originOf(e.artifact)],
      }),
    );
  }
  sections.push(
    ...staleSections(ctx.ownedSections, l.config, sections, (entry) =>
      codexMcpSection({ file: l.config, entry, desired: null, origins: [] }),
    ),
  );
  return { roots: [l.codex, l.skills], files, sections, notes };
}

const toolName = (server: string, tool: string) =>
  `mcp__${sanitize(server, WORD)}__${sanitize(tool, WORD)}`;

export const codex: Provider = {
  ...codexEntry,
  render,
  flatNamespace: false,
  toolName,
  namingSentence(server, example) {
    const { pattern, full } = namingParts(toolName, server, example);
    return `In Codex its tools are named ${pattern}, e.g. ${full}.`;
  },
  probes: { bins: ["codex"], dirs: (h, env) => [env.CODEX_HOME || path.join(h, ".codex")] },
};
