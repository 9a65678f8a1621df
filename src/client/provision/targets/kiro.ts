/**
 * Kiro (kiro.dev/docs/skills, /docs/steering, /docs/mcp/configuration). Root `~/.kiro` (user)
 * or `<project>/.kiro` (workspace):
 * - skill `<root>/skills/<name>/` (Agent Skills standard);
 * - mcp: entry `<server>-<kb>-<name>` in `<root>/settings/mcp.json` `mcpServers`, `${VAR}` kept
 *   (Kiro expands it after the user approves the variable);
 * - instructions: the instructions block already writes `<root>/steering/cartographer.md`
 *   with each KB's instructions.md, so nothing more here;
 * - agents and hooks: notes. Kiro custom agents are whole-session JSON configurations with
 *   their own tool permissions, not Markdown subagents, and Kiro hooks are IDE `.kiro.hook`
 *   files or part of a custom agent — neither takes a KB agent or hook.json as it is.
 */
import path from "node:path";
import { namingParts, sanitize, WORD } from "../../tool-names.js";
import type { Artifact, RenderContext } from "../types.js";
import { checkArtifacts, originOf } from "./checks.js";
import { folderFiles, ofKind, unsupported } from "./common.js";
import { jsonProvider } from "./json-entry.js";
import { mcpServersSections } from "./json-sections.js";
import { mcpEntries } from "./mcp-entry.js";
import type { Provider } from "./provider.js";

function render(artifacts: readonly Artifact[], ctx: RenderContext) {
  const root = path.join(ctx.scope === "user" ? ctx.home : ctx.projectDir, ".kiro");
  const mcpFile = path.join(root, "settings", "mcp.json");
  const checked = checkArtifacts(artifacts);
  const notes = [
    ...checked.notes,
    ...unsupported(
      "Kiro",
      ofKind(checked.artifacts, "agent"),
      "subagents",
      "Kiro custom agents are JSON session configurations with their own tool permissions",
    ),
    ...unsupported(
      "Kiro",
      ofKind(checked.artifacts, "hook"),
      "hooks",
      "Kiro hooks are IDE .kiro.hook files or part of a custom agent",
    ),
  ];
  if (ctx.bootstrapHook) {
    notes.push(
      "Kiro: the bootstrap hook is not supported (no session-start hook outside a custom agent); run cartographer sync yourself",
    );
  }
  const files = ofKind(checked.artifacts, "skill").flatMap((a) =>
    folderFiles(a, path.join(root, "skills", a.name)),
  );
  const mcp = mcpEntries(checked.artifacts, ctx.serverName);
  notes.push(...mcp.notes);
  const rendered = mcp.entries.map((e) => {
    const d = e.descriptor;
    const entry =
      d.type === "http"
        ? { url: d.url, ...(d.headers ? { headers: d.headers } : {}) }
        : {
            command: d.command,
            ...(d.args ? { args: d.args } : {}),
            ...(d.env ? { env: d.env } : {}),
          };
    return { entry: e.entry, desired: entry, origin: originOf(e.artifact) };
  });
  const sections = mcpServersSections(mcpFile, rendered, ctx.ownedSections);
  return { roots: [root], files, sections, notes };
}

const toolName = (server: string, tool: string) => `mcp_${sanitize(server, WORD)}_${tool}`;

/**
 * Kiro's connect side. User scope: `~/.kiro/settings/mcp.json`; workspace scope:
 * `.kiro/settings/mcp.json`. Remote entry `{url, headers}` under `mcpServers`; Kiro expands
 * `${VAR}` in headers (after the user approves the variable). Instructions: a steering file
 * `.kiro/steering/cartographer.md`. Kiro CLI has a flat tool namespace (the IDE prefixes
 * `mcp_<entry>_`, tool-names.ts), hence the warning for 2+ per-KB entries (D102). Checked
 * against kiro.dev/docs/mcp/configuration.
 */
export const kiro: Provider = {
  ...jsonProvider({
    id: "kiro",
    label: "Kiro",
    referencesEnv: true,
    containerKey: "mcpServers",
    urlField: "url",
    userFiles: (home) => ({
      config: path.join(home, ".kiro", "settings", "mcp.json"),
      instructions: path.join(home, ".kiro", "steering", "cartographer.md"),
    }),
    projectFiles: (cwd) => ({
      config: path.join(cwd, ".kiro", "settings", "mcp.json"),
      instructions: path.join(cwd, ".kiro", "steering", "cartographer.md"),
    }),
    render: (url, auth) => ({
      url,
      ...(auth.tokenEnv ? { headers: { Authorization: `Bearer \${${auth.tokenEnv}}` } } : {}),
    }),
  }),
  render,
  flatNamespace: true,
  flatLabel: "Kiro CLI",
  toolName,
  namingSentence(server, example) {
    const { pattern, full } = namingParts(toolName, server, example);
    return `In the Kiro IDE its tools are named ${pattern}, e.g. ${full}; Kiro CLI lists them by their bare names (\`${example}\`).`;
  },
  probes: { bins: ["kiro", "kiro-cli"], dirs: (h) => [path.join(h, ".kiro")] },
};
