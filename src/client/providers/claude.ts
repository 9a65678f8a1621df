import path from "node:path";
import { jsonProvider } from "./json-provider.js";

/**
 * Claude Code. User scope: `~/.claude.json` `mcpServers`; project scope: `.mcp.json`.
 * HTTP entry `{type: "http", url, headers}`; Claude Code expands `${VAR}` in `url` and
 * `headers`, so the token is referenced, never written. Instructions: `~/.claude/CLAUDE.md`
 * (user) or `CLAUDE.md` (project). Checked against the Claude Code MCP docs (docs corpus).
 */
export const claude = jsonProvider({
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
});
