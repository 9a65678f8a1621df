/** Bodies of the public non-MCP routes: /health, /ready, /.well-known/oauth-protected-resource. */
import { protectedResourceMetadata } from "../auth/bearer.js";
import { PROTECTED_RESOURCE_METADATA_PATH } from "../common/well-known.js";
import type { KbStatus } from "../runtime/kb-status.js";
import { MCP_PATH, ROUTED_PATH } from "./routes.js";

export const WELL_KNOWN_PATH = PROTECTED_RESOURCE_METADATA_PATH;

export interface HealthFacts {
  version: string;
  /** Every configured KB with its status (unavailable ones too); routing needs a served one. */
  kbs: readonly KbStatus[];
  ready: boolean;
}

export function healthBody(facts: HealthFacts): Record<string, unknown> {
  const body: Record<string, unknown> = {
    status: "ok",
    version: facts.version,
    ready: facts.ready,
    kbs: facts.kbs.map(({ name, status, reason, index, conflicts, syncHalt }) => ({
      name,
      // Served, but concepts wait for git_conflict_resolve (docs/sync.md "Conflicts"), or sync is
      // stopped.
      status: status === "ok" && ((conflicts ?? 0) > 0 || syncHalt) ? "degraded" : status,
      ...(conflicts ? { conflicts } : {}),
      // `diverged` (a force-push: run `cartographer kb resync`) or `private_state` (docs/sync.md).
      ...(syncHalt ? { sync: syncHalt } : {}),
      ...(reason === undefined ? {} : { reason }),
      // state queued|building|ready|failed, done of total concept files (built in the background).
      ...(index === undefined ? {} : { index: { ...index } }),
    })),
  };
  // D288: clients detect routing from these two fields; a server with no KB served advertises neither.
  if (facts.kbs.some((kb) => kb.status === "ok")) {
    body.mount_mode = "routed";
    body.routed_path = ROUTED_PATH;
  }
  return body;
}

/**
 * The MCP path a well-known request describes: the bare form describes `/mcp` (which prefixes
 * every MCP URL), the path-suffixed form (RFC 9728 §3.1) the MCP path after it. null = not ours.
 */
export function wellKnownResourcePath(pathname: string): string | null {
  if (pathname === WELL_KNOWN_PATH) return MCP_PATH;
  if (!pathname.startsWith(`${WELL_KNOWN_PATH}/`)) return null;
  const rest = pathname.slice(WELL_KNOWN_PATH.length);
  return rest === MCP_PATH || rest.startsWith(`${MCP_PATH}/`) ? rest : null;
}

export function wellKnownBody(
  baseUrl: string,
  resourcePath: string,
  scopes: readonly string[],
  authorizationServers: string[],
) {
  return protectedResourceMetadata({
    resource: `${baseUrl}${resourcePath}`,
    scopesSupported: [...scopes],
    authorizationServers,
  });
}
