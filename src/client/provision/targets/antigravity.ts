/**
 * Antigravity (antigravity.google/docs/skills; MCP entry below). User scope only,
 * like its MCP entry: root `~/.gemini/config`, the folder Antigravity 2.0 and its CLI read.
 * - skill `~/.gemini/config/skills/<name>/`;
 * - mcp: entry `<server>-<kb>-<name>` in `~/.gemini/config/mcp_config.json` `mcpServers`
 *   (`serverUrl` / `command` + `args`) — only for a descriptor without headers or env: Antigravity
 *   does not expand `${VAR}` (google-antigravity/antigravity-cli#233) and a value is never
 *   written, so a descriptor that needs a secret is noted instead;
 * - agents, hooks, the bootstrap hook: notes (no documented subagent or hook files);
 * - instructions: the instructions block (`~/.gemini/GEMINI.md`).
 */
import path from "node:path";
import type { Artifact, RenderContext } from "../types.js";
import { checkArtifacts, originOf } from "./checks.js";
import { folderFiles, ofKind, unsupported } from "./common.js";
import { jsonProvider } from "./json-entry.js";
import { mcpServersSections } from "./json-sections.js";
import { mcpEntries } from "./mcp-entry.js";
import type { Provider } from "./provider.js";

const LABEL = "Antigravity";

function render(artifacts: readonly Artifact[], ctx: RenderContext) {
  const checked = checkArtifacts(artifacts);
  if (ctx.scope !== "user") {
    const kinds = [
      ...new Set(checked.artifacts.filter((a) => a.kind !== "instructions").map((a) => a.kind)),
    ];
    return {
      roots: [],
      files: [],
      sections: [],
      notes:
        kinds.length === 0
          ? checked.notes
          : [
              ...checked.notes,
              `${LABEL}: provisioned at user scope only (as its MCP entry); ${kinds.join(", ")} not written`,
            ],
    };
  }
  const root = path.join(ctx.home, ".gemini", "config");
  const mcpFile = path.join(root, "mcp_config.json");
  const notes = [
    ...checked.notes,
    ...unsupported(
      LABEL,
      ofKind(checked.artifacts, "agent"),
      "subagents",
      "no documented subagent files",
    ),
    ...unsupported(
      LABEL,
      ofKind(checked.artifacts, "hook"),
      "hooks",
      "no documented hook configuration",
    ),
  ];
  if (ctx.bootstrapHook) {
    notes.push(
      `${LABEL}: the bootstrap hook is not supported (no documented hooks); run cartographer sync yourself`,
    );
  }
  const files = ofKind(checked.artifacts, "skill").flatMap((a) =>
    folderFiles(a, path.join(root, "skills", a.name)),
  );
  const mcp = mcpEntries(checked.artifacts, ctx.serverName);
  notes.push(...mcp.notes);
  const rendered: { entry: string; desired: unknown; origin: string }[] = [];
  for (const e of mcp.entries) {
    const d = e.descriptor;
    const refs = d.type === "http" ? d.headers : d.env;
    if (refs && Object.keys(refs).length > 0) {
      notes.push(
        `${e.artifact.kb}/mcp/${e.artifact.name} not written for ${LABEL}: it needs \${VAR} references, which ${LABEL} does not expand`,
      );
      continue;
    }
    const entry =
      d.type === "http"
        ? { serverUrl: d.url }
        : { command: d.command, ...(d.args ? { args: d.args } : {}) };
    rendered.push({ entry: e.entry, desired: entry, origin: originOf(e.artifact) });
  }
  const sections = mcpServersSections(mcpFile, rendered, ctx.ownedSections);
  return { roots: [root], files, sections, notes };
}

/**
 * Antigravity's connect side. `~/.gemini/config/mcp_config.json` `mcpServers`: the file
 * Antigravity 2.0 (the desktop app) and its CLI `agy` both read; the pre-2.0 IDE's
 * `~/.gemini/antigravity/mcp_config.json` is migrated by the 2.0 installer and then ignored, so
 * our entries there are removed as legacy. Remote entry `{serverUrl, headers}` (`serverUrl`, not
 * `url`/`httpUrl`). Antigravity does NOT expand env vars in this file
 * (google-antigravity/antigravity-cli#233, open), so the token is written only when the user
 * asks for it explicitly; the file is then forced to 0600. The workspace file
 * `.agents/mcp_config.json` is deliberately not offered as project scope: a literal token would
 * land in a file that lives in a repository. Instructions: the global context file
 * `~/.gemini/GEMINI.md` (agy loads Gemini CLI's).
 */
export const antigravity: Provider = {
  ...jsonProvider({
    id: "antigravity",
    label: LABEL,
    referencesEnv: false,
    containerKey: "mcpServers",
    urlField: "serverUrl",
    userFiles: (home) => ({
      config: path.join(home, ".gemini", "config", "mcp_config.json"),
      instructions: path.join(home, ".gemini", "GEMINI.md"),
      legacyConfigs: [path.join(home, ".gemini", "antigravity", "mcp_config.json")],
    }),
    render: (url, auth) => ({
      serverUrl: url,
      ...(auth.literalToken ? { headers: { Authorization: `Bearer ${auth.literalToken}` } } : {}),
    }),
    // The literal token may be absent from the environment when checking (doctor is offline):
    // only its presence is compared, never its value.
    matches: (actual, url, auth) => {
      if (actual.serverUrl !== url) return false;
      if (!auth.literalToken) return true;
      const h = actual.headers as Record<string, unknown> | undefined;
      return typeof h?.Authorization === "string" && h.Authorization.startsWith("Bearer ");
    },
    fileMode: (auth) => (auth.literalToken ? 0o600 : undefined),
  }),
  render,
  flatNamespace: true,
  toolName: (_server, tool) => tool,
  namingSentence: (server, example) =>
    `In Antigravity its tools keep their bare names, e.g. \`${example}\`; call them on MCP server \`${server}\`.`,
  probes: {
    bins: ["agy", "antigravity"],
    dirs: (h) => [path.join(h, ".gemini", "antigravity")],
  },
};
