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
 * | Antigravity | `<tool>` on server `<server>` (called through `call_mcp_tool`) | google-antigravity/antigravity-cli#71 and antigravity-cli#436 (upstream issue reports; no naming doc) |
 *
 * Kiro's IDE and CLI read the same mcp.json and steering file, so its block names both forms.
 * Each provider record (provision/targets/<provider>.ts) spells its rule with these helpers.
 */
/** Replaces every character outside `allowed` with `_`. */
export function sanitize(name: string, allowed: RegExp): string {
  return [...name].map((c) => (allowed.test(c) ? c : "_")).join("");
}

export const WORD = /[A-Za-z0-9_]/;
export const WORD_OR_DASH = /[A-Za-z0-9_-]/;

/**
 * The two spellings a naming sentence shows: the pattern (`mcp__srv__<tool>`) and `example` in
 * full, each in backticks. The placeholder is spelled in word characters so no provider's
 * sanitizing rewrites it.
 */
export function namingParts(
  toolName: (server: string, tool: string) => string,
  server: string,
  example: string,
): { pattern: string; full: string } {
  return {
    full: `\`${toolName(server, example)}\``,
    pattern: `\`${toolName(server, "TOOLNAME").replace("TOOLNAME", "<tool>")}\``,
  };
}
