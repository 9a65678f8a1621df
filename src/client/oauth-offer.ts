/**
 * Whether a server signs clients in through an identity provider: its RFC 9728 protected
 * resource metadata names at least one authorization server. A server with static tokens only
 * answers 404 there (docs/auth.md), so nothing else invites OAuth. Agent tools with OAuth support
 * (Claude Code, OpenCode, Codex) then sign in themselves on first use: connect writes their entry
 * without a token variable, and status explains a 401 instead of reporting a missing token.
 */
import { PROTECTED_RESOURCE_METADATA_PATH } from "../common/well-known.js";
import type { FetchFn } from "./health.js";

/** The authorization servers the server at `base` names, or null when it offers no OAuth. */
export async function oauthOffer(
  base: string,
  fetchFn: FetchFn = fetch,
  timeoutMs = 5000,
): Promise<string[] | null> {
  try {
    const response = await fetchFn(`${base}${PROTECTED_RESOURCE_METADATA_PATH}`, {
      headers: { accept: "application/json" },
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (!response.ok) return null;
    const body = (await response.json()) as { authorization_servers?: unknown };
    const servers = Array.isArray(body.authorization_servers)
      ? body.authorization_servers.filter((s): s is string => typeof s === "string" && s !== "")
      : [];
    return servers.length > 0 ? servers : null;
  } catch {
    return null; // unreachable or not JSON: no OAuth offered that a client could use
  }
}

/** The sentence status, doctor and connect show for an OAuth server. */
export function oauthSignInNote(who: string, servers: readonly string[]): string {
  return `${who}: the server signs in through ${servers.join(", ")} (OAuth): the agent tool opens a browser sign-in on first use (in Claude Code: /mcp, then Authenticate); skills, agents and hooks need a token for this CLI: cartographer sync --token-env NAME`;
}
