/**
 * The HTTP core (docs/decisions.md "The HTTP core is request value → reply value"): request value
 * in, reply value out, no socket. Order of checks for every request (design.md §6):
 *   header sanity (400: one Host, well-formed; one Authorization) → DNS-rebinding guard (403) →
 *   shutting down (503) → over the connection cap (503, /health and /ready excepted) →
 *   CORS preflight → route → method (405) → the route's handler.
 * The routes are a table (ROUTES) of small handlers; the MCP handler adds
 *   bearer (401) → KB selection (400/404/503) → Content-Type (415) → body cap (413) →
 *   JSON-RPC shape and batch cap (400) → MCP.
 */
import { createConsole, isConsolePath } from "../console/server.js";
import { serveConsoleRoute } from "./console-route.js";
import type { HttpReply, HttpRequest } from "./exchange.js";
import { headerOf, headerValues } from "./exchange.js";
import { parseHost } from "./host.js";
import { serveMcpRoute } from "./mcp-route.js";
import { healthBody, wellKnownBody, wellKnownResourcePath } from "./meta.js";
import { METRICS_PATH, serveMetricsRoute } from "./metrics-route.js";
import { advertisedScopes, advertisesOAuth, authorizationServersOf } from "./oauth-challenge.js";
import { authRequired, type HttpServerOptions } from "./options.js";
import {
  corsHeaders,
  isLoopbackName,
  type OriginPolicy,
  preflightHeaders,
  rebindingViolation,
} from "./origin-guard.js";
import { jsonReply, RpcCode, rpcError } from "./replies.js";
import type { RouteContext } from "./route-context.js";
import { isMcpPath } from "./routes.js";

interface Route {
  readonly methods: readonly string[];
  matches(pathname: string, opts: HttpServerOptions): boolean;
  /** Served on a connection over the cap (operators must still see the server). */
  readonly alwaysServed?: boolean;
  /** The 405 message for another method (default `method X not allowed`). */
  refuse?(method: string): string;
  handle(ctx: RouteContext): Promise<HttpReply | null> | HttpReply;
}

const ready = (opts: HttpServerOptions) =>
  opts.app.surfaces.size > 0 && !(opts.app.audit?.mode === "required" && !opts.app.audit.healthy());

const ROUTES: readonly Route[] = [
  {
    methods: ["POST"],
    matches: isMcpPath,
    refuse: (m) => `method ${m} not allowed: this stateless server takes POST only (no SSE stream)`,
    handle: serveMcpRoute,
  },
  {
    methods: ["GET", "HEAD"],
    matches: (p) => p === "/health",
    alwaysServed: true,
    handle: ({ opts, cors }) =>
      jsonReply(
        200,
        healthBody({ version: opts.version, kbs: opts.app.kbs, ready: ready(opts) }),
        cors,
      ),
  },
  {
    methods: ["GET", "HEAD"],
    matches: (p) => p === "/ready",
    alwaysServed: true,
    handle: ({ opts, cors }) => {
      if (ready(opts)) return jsonReply(200, { ready: true }, cors);
      const reason =
        opts.app.surfaces.size === 0 ? "no KB is mounted" : "audit log unavailable (required mode)";
      return jsonReply(503, { ready: false, reason }, cors);
    },
  },
  {
    methods: ["GET", "HEAD"],
    // RFC 9728 metadata only when an authorization server is configured: with static tokens
    // only it would invite clients to try OAuth here (docs/decisions.md "OAuth: nothing
    // advertises an authorization server that is not configured").
    matches: (p, opts) => advertisesOAuth(opts) && wellKnownResourcePath(p) !== null,
    handle: ({ opts, url, cors, baseUrl }) =>
      jsonReply(
        200,
        wellKnownBody(
          baseUrl(),
          wellKnownResourcePath(url.pathname) as string,
          advertisedScopes(opts),
          authorizationServersOf(opts),
        ),
        cors,
      ),
  },
  {
    methods: ["GET", "HEAD"],
    matches: (p, opts) => opts.metrics !== undefined && p === METRICS_PATH,
    handle: serveMetricsRoute,
  },
  {
    // The governance console (docs/console.md): pages, sign-in/out and its form POSTs.
    methods: ["GET", "HEAD", "POST"],
    matches: isConsolePath,
    handle: serveConsoleRoute,
  },
];

export interface HttpCore {
  /** The reply to `req`; null when there is nothing to write (the client went away). */
  handle(req: HttpRequest): Promise<HttpReply | null>;
  /** From now on every request is answered 503 (graceful shutdown). */
  stopAccepting(): void;
}

export function createHttpCore(opts: HttpServerOptions): HttpCore {
  const corsOrigins = opts.corsOrigins ?? [];
  const bindHost = opts.host ?? "127.0.0.1";
  const policy: OriginPolicy = {
    loopbackBind: isLoopbackName(bindHost),
    allowedHosts: opts.allowedHosts ?? [],
    allowedOrigins: [...(opts.allowedOrigins ?? []), ...corsOrigins],
    corsOrigins,
  };
  let closing = false;
  const auth = opts.auth;
  const consoleServer = createConsole({
    app: opts.app,
    auth: authRequired(auth)
      ? { tokens: auth.tokens, ...(auth.oauth ? { oauth: auth.oauth } : {}) }
      : null,
    ...(opts.consoleSessions ? { sessions: opts.consoleSessions } : {}),
  });

  async function handle(req: HttpRequest): Promise<HttpReply | null> {
    const refused = headerRefusal(req);
    if (refused !== null) return rpcError(400, RpcCode.invalidRequest, refused);
    const host = headerOf(req, "host");
    const origin = headerOf(req, "origin");
    const violation = rebindingViolation(policy, host, origin);
    if (violation !== null) return rpcError(403, RpcCode.serverError, `forbidden: ${violation}`);
    const cors = corsHeaders(policy, origin);
    if (closing)
      return rpcError(503, RpcCode.serverError, "server is shutting down", {
        ...cors,
        Connection: "close",
      });
    const url = new URL(req.target, "http://localhost");
    const route = ROUTES.find((r) => r.matches(url.pathname, opts));
    if (req.overCapacity && !route?.alwaysServed)
      return rpcError(
        503,
        RpcCode.serverError,
        "server busy: too many open connections; retry shortly (/health and /ready stay served)",
        { ...cors, Connection: "close", "Retry-After": "1" },
      );
    const method = req.method;
    if (method === "OPTIONS") return preflight(route, url.pathname, origin, cors);
    if (route === undefined) {
      if (method !== "GET" && method !== "HEAD")
        return rpcError(405, RpcCode.serverError, `method ${method} not allowed`, {
          ...cors,
          Allow: "GET",
        });
      return rpcError(404, RpcCode.serverError, `no route ${url.pathname}`, cors);
    }
    if (!route.methods.includes(method))
      return rpcError(
        405,
        RpcCode.serverError,
        route.refuse?.(method) ?? `method ${method} not allowed`,
        { ...cors, Allow: route.methods.includes("GET") ? "GET" : route.methods.join(", ") },
      );
    const baseUrl = () => opts.publicUrl?.replace(/\/$/, "") ?? `http://${host ?? bindHost}`;
    const reply = await route.handle({
      req,
      url,
      cors,
      host,
      opts,
      baseUrl,
      console: consoleServer,
    });
    // Over the cap, even a probe gives its connection back: the headroom is for the next probe.
    return reply !== null && req.overCapacity
      ? { ...reply, headers: { ...reply.headers, Connection: "close" } }
      : reply;
  }

  function preflight(
    route: Route | undefined,
    pathname: string,
    origin: string | undefined,
    cors: Record<string, string>,
  ): HttpReply {
    if (route === undefined)
      return rpcError(404, RpcCode.serverError, `no route ${pathname}`, cors);
    const pre = preflightHeaders(policy, origin, route.methods);
    if (pre === null)
      return rpcError(
        405,
        RpcCode.serverError,
        "method OPTIONS not allowed (CORS is not enabled for this origin)",
        { Allow: route.methods.join(", ") },
      );
    return { status: 204, headers: pre, body: null };
  }

  return {
    handle,
    stopAccepting: () => {
      closing = true;
    },
  };
}

/**
 * Header fields that must appear at most once (docs/decisions.md "Strict `Host`, single
 * `Host`/`Authorization`"): node keeps the first `Host` and joins repeated values of others, so a
 * repeat could mean different things to a proxy and to us. A Host that is not `host[:port]` is
 * refused too. null = fine.
 */
function headerRefusal(req: HttpRequest): string | null {
  for (const name of ["host", "authorization"]) {
    const count = headerValues(req, name).length;
    if (count > 1)
      return `bad request: ${name === "host" ? "Host" : "Authorization"} header given ${count} times; send it once`;
  }
  const host = headerOf(req, "host");
  if (host !== undefined && host !== "" && parseHost(host) === null)
    return "bad request: Host header is not host[:port]";
  return null;
}
