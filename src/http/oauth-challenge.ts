/**
 * What the HTTP edge tells a client about OAuth (MCP authorization; RFC 6750, 8707, 9728): the
 * authorization servers and scopes the metadata advertises, the 401 and 403 challenges, and the
 * audiences a token for this request may carry. Nothing advertises an authorization server
 * that is not configured (docs/decisions.md "OAuth: nothing advertises an authorization server
 * that is not configured").
 */
import { wwwAuthenticate } from "../auth/bearer.js";
import { scopesSupported } from "../auth/scopes.js";
import type { HttpReply } from "./exchange.js";
import { WELL_KNOWN_PATH } from "./meta.js";
import { authRequired, type HttpServerOptions } from "./options.js";
import { RpcCode, rpcError } from "./replies.js";
import type { RouteContext } from "./route-context.js";
import { MCP_PATH } from "./routes.js";

/** The configured identity provider's issuer first, then `auth.authorization_servers`. */
export function authorizationServersOf(opts: HttpServerOptions): string[] {
  if (!authRequired(opts.auth)) return [];
  const issuer = opts.auth.oauth?.issuer;
  return [...new Set([...(issuer ? [issuer] : []), ...(opts.auth.authorizationServers ?? [])])];
}

/** Whether an authorization server is advertised (metadata served, challenges point at it). */
export function advertisesOAuth(opts: HttpServerOptions): boolean {
  return authorizationServersOf(opts).length > 0;
}

/** `scopes_supported`: `auth.oauth.scopes` when set, else `kb:<name>:r|rw` per mounted KB. */
export function advertisedScopes(opts: HttpServerOptions): string[] {
  return opts.auth?.oauth?.settings.scopes ?? scopesSupported([...opts.app.surfaces.keys()]);
}

/** The 401 for a missing or refused bearer. */
export function unauthorizedReply(ctx: RouteContext): HttpReply {
  const challenge = advertisesOAuth(ctx.opts)
    ? {
        resourceMetadata: `${ctx.baseUrl()}${WELL_KNOWN_PATH}`,
        // Only a configured identity provider says which scopes to ask it for.
        ...(ctx.opts.auth?.oauth ? { scope: advertisedScopes(ctx.opts) } : {}),
      }
    : {};
  return rpcError(401, RpcCode.unauthorized, "unauthorized: a valid bearer token is required", {
    ...ctx.cors,
    "WWW-Authenticate": wwwAuthenticate(challenge),
  });
}

/**
 * The 403 for a principal that can read none of the endpoint's KBs, with the scopes that would
 * let it in (step-up authorization); `auth.oauth.scopes` when configured, else `kb:<name>:r`.
 */
export function insufficientScopeReply(ctx: RouteContext, kbs: readonly string[]): HttpReply {
  const scope = ctx.opts.auth?.oauth?.settings.scopes ?? kbs.map((kb) => `kb:${kb}:r`);
  return rpcError(
    403,
    RpcCode.serverError,
    `forbidden: this token may read none of the KBs of this endpoint (${kbs.join(", ")})`,
    {
      ...ctx.cors,
      "WWW-Authenticate": wwwAuthenticate({
        error: "insufficient_scope",
        scope,
        resourceMetadata: `${ctx.baseUrl()}${WELL_KNOWN_PATH}`,
      }),
    },
  );
}

/**
 * The audiences accepted when `auth.oauth.audience` is not set (RFC 8707): the canonical
 * resource `<base>/mcp` the bare metadata names, and the MCP path called (path-suffixed metadata).
 */
export function requestAudiences(ctx: RouteContext): string[] {
  const path = ctx.url.pathname.replace(/\/$/, "");
  return [...new Set([`${ctx.baseUrl()}${MCP_PATH}`, `${ctx.baseUrl()}${path}`])];
}
