/**
 * Whether a server signs clients in through an identity provider: its RFC 9728 protected
 * resource metadata names at least one authorization server. A server with static tokens only
 * answers 404 there (docs/auth.md), so nothing else invites OAuth. Agent tools with OAuth support
 * (Claude Code, OpenCode, Codex) then sign in themselves on first use: connect writes their entry
 * without a token variable, status explains a 401 instead of reporting a missing token, and
 * doctor (offline) explains a token-less entry.
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

/** How an agent tool signs in to an OAuth server, and what it leaves to this CLI. */
const SIGN_IN =
  "the agent tool opens a browser sign-in on first use (in Claude Code: /mcp, then Authenticate); skills, agents and hooks need a token for this CLI: cartographer sync --token-env NAME";

/** The sentence status and connect show for a server that offers OAuth. */
export function oauthSignInNote(who: string, servers: readonly string[]): string {
  return `${who}: the server signs in through ${servers.join(", ")} (OAuth): ${SIGN_IN}`;
}

/**
 * The sentence doctor shows for entries without a token (no `token_env`), without asking the
 * server: connect writes such entries only for a server that needs no token or offers OAuth.
 */
export function tokenlessEntriesNote(who: string): string {
  return `${who}: the entries carry no token (.cartographer.yaml names no token_env); connect writes them so for a server that needs none or one that signs in through an identity provider named in its RFC 9728 metadata (/.well-known/oauth-protected-resource). With OAuth, ${SIGN_IN}. doctor does not ask the server: cartographer status tells which`;
}
