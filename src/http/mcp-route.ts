/**
 * The MCP route handler: bearer (401) → KB selection (400/404, 503 for a KB that could not be
 * opened) → with an identity provider, read access to one of the endpoint's KBs (403
 * insufficient_scope) → Content-Type (415) → Accept (406, accept.ts) → body cap (413) → JSON-RPC shape and batch cap (400) → one
 * stateless MCP exchange (mcp-endpoint.ts).
 */
import { parseBearer } from "../auth/bearer.js";
import { canReadAnyKb } from "../auth/decide.js";
import { principalOfBearer } from "../auth/oauth/bearer-principal.js";
import type { Principal } from "../auth/types.js";
import { LOCAL_ADMIN } from "../mcp/context.js";
import { serverName } from "../mcp/server.js";
import type { ToolSurface } from "../mcp/surface.js";
import { acceptedReplies } from "./accept.js";
import { DEFAULT_MAX_BATCH_MESSAGES, parseRpcBody } from "./body.js";
import { isJsonContentType } from "./content-type.js";
import { type HttpReply, headerOf } from "./exchange.js";
import { serveMcpRequest } from "./mcp-endpoint.js";
import { insufficientScopeReply, requestAudiences, unauthorizedReply } from "./oauth-challenge.js";
import { authRequired, DEFAULT_MAX_BODY_BYTES } from "./options.js";
import { RpcCode, rpcError } from "./replies.js";
import type { RouteContext } from "./route-context.js";
import { resolveMcpRoute } from "./routes.js";

export async function serveMcpRoute(ctx: RouteContext): Promise<HttpReply | null> {
  const { req, url, cors, opts } = ctx;
  const principal = await authenticate(ctx);
  if (principal === null) return unauthorizedReply(ctx);
  const app = opts.app;
  const names = [...app.surfaces.keys()];
  const route = resolveMcpRoute(url.pathname, url.searchParams, names, app.unavailable);
  if (!route.ok)
    return rpcError(
      route.status,
      route.status === 400 ? RpcCode.invalidRequest : RpcCode.serverError,
      route.message,
      cors,
    );
  const endpointKbs = route.target.kind === "kb" ? [route.target.kb] : route.target.kbs;
  // Step-up (MCP authorization "Scope Challenge Handling") where a client can act on it: with an
  // identity provider. Static-only servers keep D187's JSON-RPC `forbidden`.
  if (opts.auth?.oauth && !canReadAnyKb(principal.policy, endpointKbs))
    return insufficientScopeReply(ctx, endpointKbs);
  if (!isJsonContentType(headerOf(req, "content-type")))
    return rpcError(
      415,
      RpcCode.serverError,
      "unsupported media type: Content-Type must be application/json",
      cors,
    );
  const accepted = acceptedReplies(headerOf(req, "accept"));
  if (!accepted.json && !accepted.eventStream)
    return rpcError(
      406,
      RpcCode.serverError,
      "Not Acceptable: Accept must allow application/json or text/event-stream (or be left out)",
      cors,
    );
  const maxBody = opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const body = await req.readBody(maxBody);
  if (!body.ok) {
    if (body.reason === "aborted") return null;
    return rpcError(413, RpcCode.serverError, `request body over ${maxBody} bytes`, {
      ...cors,
      Connection: "close",
    });
  }
  const rpc = parseRpcBody(body.bytes, opts.maxBatchMessages ?? DEFAULT_MAX_BATCH_MESSAGES);
  if (!rpc.ok) return rpcError(400, rpc.code, rpc.message, cors);
  const target = route.target;
  const surface: ToolSurface =
    target.kind === "kb"
      ? (app.surfaces.get(target.kb) as ToolSurface)
      : app.routed.get(target.kbs);
  const reply = await serveMcpRequest(req, rpc.parsed, {
    surface,
    serverName: serverName(target.kind === "kb" ? target.kb : null, names.length),
    version: opts.version,
    profile: opts.toolsProfile ?? "agent",
    principal,
    logger: app.logger,
  });
  return { ...reply, headers: { ...cors, ...reply.headers } };
}

/** The caller's principal; null = 401. The bearer goes no further than this (never downstream). */
async function authenticate(ctx: RouteContext): Promise<Principal | null> {
  const auth = ctx.opts.auth;
  if (!authRequired(auth)) return LOCAL_ADMIN;
  const bearer = parseBearer(headerOf(ctx.req, "authorization"));
  return bearer === null ? null : principalOfBearer(bearer, auth, requestAudiences(ctx));
}
