import path from "node:path";
import { jsonProvider } from "./json-provider.js";

/**
 * Kiro. User scope: `~/.kiro/settings/mcp.json`; workspace scope: `.kiro/settings/mcp.json`.
 * Remote entry `{url, headers}` under `mcpServers`; Kiro expands `${VAR}` in headers (after the
 * user approves the variable). Instructions: a steering file `.kiro/steering/cartographer.md`.
 * Kiro CLI has a flat tool namespace (the IDE prefixes `mcp_<entry>_`, tool-names.ts), hence
 * the warning for 2+ per-KB entries (D102). Checked
 * against kiro.dev/docs/mcp/configuration.
 */
export const kiro = jsonProvider({
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
});
