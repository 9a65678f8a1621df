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
import type { Artifact, ProvisionTarget, RenderContext } from "../types.js";
import { checkArtifacts, originOf } from "./checks.js";
import { folderFiles, ofKind, unsupported } from "./common.js";
import { mcpServersSections } from "./json-sections.js";
import { mcpEntries } from "./mcp-entry.js";

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

export const kiroTarget: ProvisionTarget = { id: "kiro", render };
