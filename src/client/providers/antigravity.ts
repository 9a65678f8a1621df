import path from "node:path";
import { jsonProvider } from "./json-provider.js";

/**
 * Antigravity. `~/.gemini/config/mcp_config.json` `mcpServers`: the file Antigravity 2.0 (the
 * desktop app) and its CLI `agy` both read; the pre-2.0 IDE's `~/.gemini/antigravity/
 * mcp_config.json` is migrated by the 2.0 installer and then ignored, so our entries there are
 * removed as legacy. Remote entry `{serverUrl, headers}` (`serverUrl`, not `url`/`httpUrl`).
 * Antigravity does NOT expand env vars in this file (google-antigravity/antigravity-cli#233,
 * open), so the token is written only when the user asks for it explicitly; the file is then
 * forced to 0600. The workspace file `.agents/mcp_config.json` is deliberately not offered as
 * project scope: a literal token would land in a file that lives in a repository.
 * Instructions: the global context file `~/.gemini/GEMINI.md` (agy loads Gemini CLI's).
 */
export const antigravity = jsonProvider({
  id: "antigravity",
  label: "Antigravity",
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
});
