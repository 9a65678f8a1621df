/**
 * OpenCode (opencode.ai/docs/skills, /agents, /plugins, /mcp-servers). Root
 * `~/.config/opencode` (user) or `<project>/.opencode` (project):
 * - skill `<root>/skills/<name>/`; OpenCode loads only names that are lowercase words joined by
 *   single hyphens and equal to the folder, so any other name is written with a note;
 * - agent `<root>/agents/<name>.md`: frontmatter reduced to `description` + `mode: subagent`
 *   (OpenCode rejects Claude's `tools` string and model names), body kept;
 * - hooks: files under `<root>/cartographer/hooks/<name>/` (every file but hook.json executable,
 *   Go's floor), their command lines run with `sh -c` by one generated plugin
 *   `<root>/plugins/cartographer-hooks.js` (SessionStart, PreToolUse, PostToolUse, Stop — Go's
 *   mapping); the bootstrap hook is a SessionStart entry of the same plugin;
 * - mcp: `mcp.<server>-<kb>-<name>` in `~/.config/opencode/opencode.json` / `<project>/opencode.json`,
 *   `${VAR}` written as OpenCode's `{env:VAR}` reference, never a value;
 * - instructions: the instructions block (AGENTS.md).
 */
import path from "node:path";
import { namingParts, sanitize, WORD_OR_DASH } from "../../tool-names.js";
import type { Artifact, ManagedSection, RenderContext } from "../types.js";
import { agentFrontmatterOf, checkArtifacts, frontmatterOf, originOf } from "./checks.js";
import {
  BOOTSTRAP_ORIGIN,
  folderFiles,
  generatedFile,
  hookFiles,
  listOf,
  ofKind,
  staleSections,
} from "./common.js";
import { renderFrontmatter, stringField } from "./frontmatter.js";
import { BOOTSTRAP_SCRIPT, hookCommand, parseHookSpec } from "./hook-spec.js";
import { jsonProvider } from "./json-entry.js";
import { jsonEntrySection } from "./json-sections.js";
import { type McpEntry, mcpEntries } from "./mcp-entry.js";
import {
  OPENCODE_EVENTS,
  opencodePluginSource,
  PLUGIN_HOOK_DIR_WORD,
  type PluginHook,
} from "./opencode-plugin.js";
import type { Provider } from "./provider.js";

const SKILL_NAME = /^[a-z0-9]+(-[a-z0-9]+)*$/;

function layout(ctx: RenderContext) {
  const root =
    ctx.scope === "user"
      ? path.join(ctx.home, ".config", "opencode")
      : path.join(ctx.projectDir, ".opencode");
  return {
    root,
    hooksDir: path.join(root, "cartographer", "hooks"),
    plugin: path.join(root, "plugins", "cartographer-hooks.js"),
    config:
      ctx.scope === "user"
        ? path.join(root, "opencode.json")
        : path.join(ctx.projectDir, "opencode.json"),
  };
}

/** `${VAR}` → `{env:VAR}`, OpenCode's reference syntax (still a reference, never a value). */
function envRef(value: string): string {
  return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, "{env:$1}");
}

function mapValues(o: Record<string, string> | undefined): Record<string, string> | undefined {
  if (!o) return undefined;
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, envRef(v)]));
}

export function opencodeMcpEntry(e: McpEntry): Record<string, unknown> {
  const d = e.descriptor;
  if (d.type === "http") {
    const headers = mapValues(d.headers);
    return { type: "remote", url: d.url, enabled: true, ...(headers ? { headers } : {}) };
  }
  const environment = mapValues(d.env);
  return {
    type: "local",
    command: [d.command, ...(d.args ?? [])],
    enabled: true,
    ...(environment ? { environment } : {}),
  };
}

/** The agent file OpenCode takes, or `{ error }`. */
export function opencodeAgent(a: Artifact): string | { error: string } {
  const fm = agentFrontmatterOf(a);
  if ("error" in fm) return fm;
  const description = stringField(fm.data, "description");
  if (!description) return { error: "OpenCode needs a description (frontmatter `description`)" };
  return renderFrontmatter({ description, mode: "subagent" }, fm.body);
}

function render(artifacts: readonly Artifact[], ctx: RenderContext) {
  const l = layout(ctx);
  const checked = checkArtifacts(artifacts);
  const notes = [...checked.notes];
  const files = [];
  const oddNames: string[] = [];
  for (const a of ofKind(checked.artifacts, "skill")) {
    files.push(...folderFiles(a, path.join(l.root, "skills", a.name)));
    const fm = frontmatterOf(a);
    if (!SKILL_NAME.test(a.name) || !fm || !("data" in fm) || fm.data.name !== a.name)
      oddNames.push(`${a.kb}/skill/${a.name}`);
  }
  if (oddNames.length > 0) {
    notes.push(
      `OpenCode loads a skill only when its name is lowercase words joined by single hyphens and equals the frontmatter name: ${listOf(oddNames)} written but OpenCode may refuse them (rename in the KB)`,
    );
  }
  for (const a of ofKind(checked.artifacts, "agent")) {
    const md = opencodeAgent(a);
    if (typeof md !== "string")
      notes.push(`${a.kb}/agent/${a.name} not written for OpenCode: ${md.error}`);
    else files.push(generatedFile(path.join(l.root, "agents", `${a.name}.md`), md, originOf(a)));
  }
  const hooks: PluginHook[] = [];
  const hookOrigins: string[] = [];
  const rel = (p: string) => path.relative(path.dirname(l.plugin), p).split(path.sep).join("/");
  if (ctx.bootstrapHook) {
    const script = path.join(l.hooksDir, "_bootstrap.sh");
    files.push(generatedFile(script, BOOTSTRAP_SCRIPT, BOOTSTRAP_ORIGIN, true));
    hooks.push({
      name: "bootstrap",
      event: "SessionStart",
      dir: rel(l.hooksDir),
      line: `${PLUGIN_HOOK_DIR_WORD}/_bootstrap.sh`,
    });
    hookOrigins.push(BOOTSTRAP_ORIGIN);
  }
  for (const a of ofKind(checked.artifacts, "hook")) {
    const spec = parseHookSpec(a);
    if ("error" in spec) {
      notes.push(`${a.kb}/hook/${a.name} not written: ${spec.error}`);
      continue;
    }
    if (!Object.hasOwn(OPENCODE_EVENTS, spec.event)) {
      notes.push(
        `${a.kb}/hook/${a.name} not written for OpenCode: its plugin events have no ${spec.event}`,
      );
      continue;
    }
    notes.push(...spec.warnings.map((w) => `${a.kb}/hook/${a.name}: ${w}`));
    const dir = path.join(l.hooksDir, a.name);
    files.push(...hookFiles(a, dir));
    hooks.push({
      name: `${a.kb}/${a.name}`,
      event: spec.event,
      ...(spec.matcher ? { matcher: spec.matcher } : {}),
      dir: rel(dir),
      line: hookCommand(PLUGIN_HOOK_DIR_WORD, spec),
      ...(spec.timeout ? { timeout: spec.timeout } : {}),
    });
    hookOrigins.push(originOf(a));
  }
  if (hooks.length > 0) {
    files.push(generatedFile(l.plugin, opencodePluginSource(hooks), hookOrigins.join(",")));
  }
  const mcp = mcpEntries(checked.artifacts, ctx.serverName);
  notes.push(...mcp.notes);
  const sections: ManagedSection[] = mcp.entries.map((e) =>
    jsonEntrySection({
      file: l.config,
      containerKey: "mcp",
      entry: e.entry,
      desired: opencodeMcpEntry(e),
      origins: [originOf(e.artifact)],
      jsonc: true,
    }),
  );
  sections.push(
    ...staleSections(ctx.ownedSections, l.config, sections, (entry) =>
      jsonEntrySection({
        file: l.config,
        containerKey: "mcp",
        entry,
        desired: null,
        origins: [],
        jsonc: true,
      }),
    ),
  );
  const roots = ctx.scope === "user" ? [l.root] : [l.root, l.config];
  return { roots, files, sections, notes };
}

const toolName = (server: string, tool: string) =>
  `${sanitize(server, WORD_OR_DASH)}_${sanitize(tool, WORD_OR_DASH)}`;

/**
 * OpenCode's connect side. User scope: `~/.config/opencode/opencode.json`; project scope:
 * `opencode.json`. Entries live under the top-level `mcp` key: `{type: "remote", url, enabled:
 * true, headers}`, and OpenCode substitutes `{env:VAR}` in config values. Instructions:
 * `AGENTS.md` in `~/.config/opencode/` (user) or the project root. Checked against
 * opencode.ai/docs/mcp-servers. The file may be JSONC (OpenCode reads comments and trailing
 * commas): it is edited in place, everything outside our entries kept byte for byte
 * (json-edit.ts).
 */
export const opencode: Provider = {
  ...jsonProvider({
    id: "opencode",
    label: "OpenCode",
    referencesEnv: true,
    containerKey: "mcp",
    urlField: "url",
    jsonc: true,
    userFiles: (home) => ({
      config: path.join(home, ".config", "opencode", "opencode.json"),
      instructions: path.join(home, ".config", "opencode", "AGENTS.md"),
    }),
    projectFiles: (cwd) => ({
      config: path.join(cwd, "opencode.json"),
      instructions: path.join(cwd, "AGENTS.md"),
    }),
    render: (url, auth) => ({
      type: "remote",
      url,
      enabled: true,
      ...(auth.tokenEnv ? { headers: { Authorization: `Bearer {env:${auth.tokenEnv}}` } } : {}),
    }),
  }),
  render,
  flatNamespace: false,
  toolName,
  namingSentence(server, example) {
    const { pattern, full } = namingParts(toolName, server, example);
    return `In OpenCode its tools are named ${pattern}, e.g. ${full}.`;
  },
  probes: {
    bins: ["opencode"],
    dirs: (h) => [path.join(h, ".config", "opencode"), path.join(h, ".opencode")],
  },
};
