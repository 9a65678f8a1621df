/**
 * How each agent tool names an MCP server's tools to its model (pure). The instructions block
 * must use these names: an agent told to call `search` when its tool list says
 * `mcp__cartographer__search` guesses, and sometimes guesses wrong.
 *
 * | provider | the model sees | source |
 * |---|---|---|
 * | Claude Code | `mcp__<server>__<tool>` | Claude Code MCP docs (permission rules name `mcp__<server>__<tool>`) |
 * | Codex CLI | `mcp__<server>__<tool>`, every character outside `[A-Za-z0-9_]` as `_` | openai/codex `codex-rs/codex-mcp/src/tools.rs` + `sanitize_responses_api_tool_name` |
 * | OpenCode | `<server>_<tool>`, characters outside `[A-Za-z0-9_-]` as `_` | sst/opencode `packages/opencode/src/mcp/index.ts` (`tools()`) |
 * | Kiro IDE | `mcp_<server>_<tool>`, `-` in the server name as `_` | kiro.dev/docs/mcp/usage (`mcp_aws_docs_search_documentation`) |
 * | Kiro CLI | `<tool>` (bare, one flat namespace) | kirodotdev/Kiro#7656 |
 * | Antigravity | `<tool>` on server `<server>` (called through `call_mcp_tool`) | google-antigravity/antigravity-cli#71, #436 (issue reports; no naming doc) |
 *
 * Kiro's IDE and CLI read the same mcp.json and steering file, so its block names both forms.
 */
import type { ProviderId } from "./config.js";

/** Replaces every character outside `allowed` with `_`. */
function sanitize(name: string, allowed: RegExp): string {
  return [...name].map((c) => (allowed.test(c) ? c : "_")).join("");
}

const WORD = /[A-Za-z0-9_]/;
const WORD_OR_DASH = /[A-Za-z0-9_-]/;

/** The name under which `provider`'s model sees `tool` of the MCP entry named `server`. */
export function agentToolName(provider: ProviderId, server: string, tool: string): string {
  switch (provider) {
    case "claude":
      return `mcp__${sanitize(server, WORD_OR_DASH)}__${sanitize(tool, WORD_OR_DASH)}`;
    case "codex":
      return `mcp__${sanitize(server, WORD)}__${sanitize(tool, WORD)}`;
    case "opencode":
      return `${sanitize(server, WORD_OR_DASH)}_${sanitize(tool, WORD_OR_DASH)}`;
    case "kiro":
      return `mcp_${sanitize(server, WORD)}_${tool}`;
    case "antigravity":
      return tool;
  }
}

/**
 * One sentence saying how the tools of `server` are named in `provider`, with `example` (a
 * tool name) spelled out; ends with a full stop.
 */
export function namingSentence(provider: ProviderId, server: string, example: string): string {
  const full = `\`${agentToolName(provider, server, example)}\``;
  // The placeholder is spelled in word characters so no provider's sanitizing rewrites it.
  const pattern = `\`${agentToolName(provider, server, "TOOLNAME").replace("TOOLNAME", "<tool>")}\``;
  switch (provider) {
    case "claude":
      return `In Claude Code its tools are named ${pattern}, e.g. ${full}.`;
    case "codex":
      return `In Codex its tools are named ${pattern}, e.g. ${full}.`;
    case "opencode":
      return `In OpenCode its tools are named ${pattern}, e.g. ${full}.`;
    case "kiro":
      return `In the Kiro IDE its tools are named ${pattern}, e.g. ${full}; Kiro CLI lists them by their bare names (\`${example}\`).`;
    case "antigravity":
      return `In Antigravity its tools keep their bare names, e.g. \`${example}\`; call them on MCP server \`${server}\`.`;
  }
}
