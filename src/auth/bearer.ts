/**
 * The HTTP edge of authentication (RFC 6750 bearer header, RFC 9728 protected-resource
 * metadata). Pure string work; the HTTP layer owns status codes and bodies.
 */

/**
 * The token of an `Authorization: Bearer <token>` header, or null when the header is missing,
 * uses another scheme, or is malformed. The scheme is case-insensitive; surrounding spaces are
 * ignored; a token containing whitespace is malformed.
 */
export function parseBearer(header: string | undefined): string | null {
  if (header === undefined) return null;
  const match = /^bearer[ \t]+(\S+)$/i.exec(header.trim());
  return match?.[1] ?? null;
}

export interface BearerChallenge {
  /** RFC 6750 §3.1; absent on a 401 for a missing or unknown token. */
  error?: "insufficient_scope";
  /** The protected-resource metadata URL (RFC 9728 §5.1); only with an authorization server. */
  resourceMetadata?: string;
  /** Scopes that would do (RFC 6750 §3, MCP authorization "Scope Selection Strategy"). */
  scope?: readonly string[];
}

/**
 * A `WWW-Authenticate` value: `Bearer` alone, or with `error`, `scope` and `resource_metadata`
 * parameters in that order. A server with static tokens only sends bare `Bearer`, so nothing in
 * a 401 invites a client to try OAuth there (docs/decisions.md "OAuth: nothing advertises an
 * authorization server that is not configured").
 */
export function wwwAuthenticate(challenge: BearerChallenge = {}): string {
  const params: string[] = [];
  if (challenge.error !== undefined) params.push(`error="${challenge.error}"`);
  if (challenge.scope !== undefined && challenge.scope.length > 0)
    params.push(`scope=${quoted(challenge.scope.join(" "))}`);
  if (challenge.resourceMetadata !== undefined)
    params.push(`resource_metadata=${quoted(challenge.resourceMetadata)}`);
  return params.length === 0 ? "Bearer" : `Bearer ${params.join(", ")}`;
}

function quoted(value: string): string {
  return `"${value.replace(/["\\]/g, "\\$&")}"`;
}

export interface ProtectedResourceMetadata {
  resource: string;
  bearer_methods_supported: ["header"];
  scopes_supported: string[];
  authorization_servers?: string[];
}

/**
 * Body of `/.well-known/oauth-protected-resource[/<mcp path>]` (RFC 9728): `resource` is the
 * MCP URL; `authorization_servers` only when configured.
 */
export function protectedResourceMetadata(opts: {
  resource: string;
  scopesSupported: string[];
  authorizationServers?: string[];
}): ProtectedResourceMetadata {
  const body: ProtectedResourceMetadata = {
    resource: opts.resource,
    bearer_methods_supported: ["header"],
    scopes_supported: opts.scopesSupported,
  };
  if (opts.authorizationServers !== undefined && opts.authorizationServers.length > 0) {
    body.authorization_servers = opts.authorizationServers;
  }
  return body;
}
