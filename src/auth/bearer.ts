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

/** `WWW-Authenticate` value of a 401: `Bearer resource_metadata="<url>"` (RFC 9728 §5.1). */
export function wwwAuthenticate(resourceMetadataUrl: string): string {
  return `Bearer resource_metadata="${resourceMetadataUrl.replace(/["\\]/g, "\\$&")}"`;
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
