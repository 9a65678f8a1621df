import path from "node:path";
import { jsonProvider } from "./json-provider.js";

/**
 * OpenCode. User scope: `~/.config/opencode/opencode.json`; project scope: `opencode.json`.
 * Entries live under the top-level `mcp` key: `{type: "remote", url, enabled: true, headers}`,
 * and OpenCode substitutes `{env:VAR}` in config values. Instructions: `AGENTS.md` in
 * `~/.config/opencode/` (user) or the project root. Checked against opencode.ai/docs/mcp-servers.
 * The file may be JSONC (OpenCode reads comments and trailing commas): it is edited in place,
 * everything outside our entries kept byte for byte (json-edit.ts).
 */
export const opencode = jsonProvider({
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
});
