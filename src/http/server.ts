/**
 * The HTTP server (DESIGN §6): node:http, a handful of explicit routes, Streamable HTTP in
 * stateless JSON mode on the MCP paths. Order of checks for every request:
 *   DNS-rebinding guard (403) → CORS preflight → route → method (405) → bearer (401) →
 *   KB selection (400/404) → Content-Type (415) → body cap (413) → JSON-RPC shape (400) → MCP.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { parseBearer, wwwAuthenticate } from "../auth/bearer.js";
import type { Principal } from "../auth/types.js";
import { LOCAL_ADMIN } from "../mcp/context.js";
import { KbSurface } from "../mcp/kb-surface.js";
import { closeMount } from "../mcp/mount.js";
import { RoutedSurfaceCache } from "../mcp/routed-cache.js";
import { serverName } from "../mcp/server.js";
import type { ToolSurface } from "../mcp/surface.js";
import { toolsFor } from "../tools/registry.js";
import { parseRpcBody, readBody } from "./body.js";
import { isJsonContentType } from "./content-type.js";
import { serveMcpRequest } from "./mcp-endpoint.js";
import { healthBody, WELL_KNOWN_PATH, wellKnownBody, wellKnownResourcePath } from "./meta.js";
import { servedMounts } from "./mounts.js";
import {
  DEFAULT_MAX_BODY_BYTES,
  type HttpServerHandle,
  type HttpServerOptions,
} from "./options.js";
import {
  corsHeaders,
  isLoopbackName,
  type OriginPolicy,
  preflightHeaders,
  rebindingViolation,
} from "./origin-guard.js";
import { RpcCode, sendJson, sendRpcError } from "./replies.js";
import { isMcpPath, resolveMcpRoute } from "./routes.js";

export type { HttpServerHandle, HttpServerOptions } from "./options.js";

export async function startHttpServer(opts: HttpServerOptions): Promise<HttpServerHandle> {
  const host = opts.host ?? "127.0.0.1";
  const loopbackBind = isLoopbackName(host);
  const authOn = opts.auth?.tokens != null;
  if (!authOn && !loopbackBind) {
    if (!opts.allowInsecureNoAuth) {
      throw new Error(
        `refusing to listen on ${host} with auth off: anyone who can reach it could read and write every KB; configure tokens, bind 127.0.0.1, or pass --insecure-no-auth`,
      );
    }
    opts.logger.warn(
      `listening on ${host} with auth OFF (--insecure-no-auth): every client is admin on every KB`,
    );
  }
  const mounts = servedMounts(opts.mounts, opts.logger);
  const specsFor = opts.toolsFor ?? toolsFor;
  const surfaces = new Map(
    mounts.map((m) => [
      m.name,
      new KbSurface({
        runtime: m.runtime,
        specs: specsFor(m.settings),
        audit: opts.audit ?? null,
        logger: opts.logger,
      }),
    ]),
  );
  const names = [...surfaces.keys()];
  const routed = new RoutedSurfaceCache([...surfaces.values()], opts.routedCacheSize);
  const corsOrigins = opts.corsOrigins ?? [];
  const originPolicy: OriginPolicy = {
    loopbackBind,
    allowedHosts: opts.allowedHosts ?? [],
    allowedOrigins: [...(opts.allowedOrigins ?? []), ...corsOrigins],
    corsOrigins,
  };
  const maxBody = opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const profile = opts.toolsProfile ?? "agent";
  const ready = () =>
    names.length > 0 && !(opts.audit?.mode === "required" && !opts.audit.healthy());

  let inFlight = 0;
  let closing = false;
  /** Requests still receiving their body: no call has started, so close() may cut them. */
  const receiving = new Set<IncomingMessage>();
  let drained: (() => void) | null = null;

  const baseUrl = (req: IncomingMessage) =>
    opts.publicUrl?.replace(/\/$/, "") ?? `http://${req.headers.host ?? host}`;

  const authenticate = (req: IncomingMessage): Principal | null => {
    const tokens = opts.auth?.tokens;
    if (tokens == null) return LOCAL_ADMIN;
    const bearer = parseBearer(req.headers.authorization);
    return bearer === null ? null : tokens.authenticate(bearer);
  };

  /** The methods `pathname` serves (what a preflight or an Allow header lists); [] = no route. */
  const servedMethods = (pathname: string): readonly string[] => {
    if (isMcpPath(pathname)) return ["POST"];
    const metadata = authOn && wellKnownResourcePath(pathname) !== null;
    return pathname === "/health" || pathname === "/ready" || metadata ? ["GET", "HEAD"] : [];
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const origin = header(req, "origin");
    const violation = rebindingViolation(originPolicy, header(req, "host"), origin);
    if (violation !== null)
      return sendRpcError(res, 403, RpcCode.serverError, `forbidden: ${violation}`);
    const cors = corsHeaders(originPolicy, origin);
    if (closing)
      return sendRpcError(res, 503, RpcCode.serverError, "server is shutting down", {
        ...cors,
        Connection: "close",
      });
    const url = new URL(req.url ?? "/", "http://localhost");
    const method = req.method ?? "GET";

    if (method === "OPTIONS") {
      const methods = servedMethods(url.pathname);
      if (methods.length === 0)
        return sendRpcError(res, 404, RpcCode.serverError, `no route ${url.pathname}`, cors);
      const pre = preflightHeaders(originPolicy, origin, methods);
      if (pre === null)
        return sendRpcError(
          res,
          405,
          RpcCode.serverError,
          "method OPTIONS not allowed (CORS is not enabled for this origin)",
          { Allow: methods.join(", ") },
        );
      res.writeHead(204, pre);
      res.end();
      return;
    }

    if (isMcpPath(url.pathname)) {
      if (method !== "POST") {
        return sendRpcError(
          res,
          405,
          RpcCode.serverError,
          `method ${method} not allowed: this stateless server takes POST only (no SSE stream)`,
          { ...cors, Allow: "POST" },
        );
      }
      const principal = authenticate(req);
      if (principal === null) {
        const metadata = `${baseUrl(req)}${WELL_KNOWN_PATH}`;
        return sendRpcError(
          res,
          401,
          RpcCode.unauthorized,
          "unauthorized: a valid bearer token is required",
          {
            ...cors,
            "WWW-Authenticate": wwwAuthenticate(metadata),
          },
        );
      }
      const route = resolveMcpRoute(url.pathname, url.searchParams, names);
      if (!route.ok)
        return sendRpcError(
          res,
          route.status,
          route.status === 400 ? RpcCode.invalidRequest : RpcCode.serverError,
          route.message,
          cors,
        );
      if (!isJsonContentType(header(req, "content-type"))) {
        return sendRpcError(
          res,
          415,
          RpcCode.serverError,
          "unsupported media type: Content-Type must be application/json",
          cors,
        );
      }
      receiving.add(req);
      const body = await readBody(req, maxBody).finally(() => receiving.delete(req));
      if (!body.ok) {
        if (body.reason === "aborted") return;
        return sendRpcError(res, 413, RpcCode.serverError, `request body over ${maxBody} bytes`, {
          ...cors,
          Connection: "close",
        });
      }
      const rpc = parseRpcBody(body.bytes);
      if (!rpc.ok) return sendRpcError(res, 400, rpc.code, rpc.message, cors);
      const target = route.target;
      const surface: ToolSurface =
        target.kind === "kb" ? (surfaces.get(target.kb) as KbSurface) : routed.get(target.kbs);
      for (const [k, v] of Object.entries(cors)) res.setHeader(k, v);
      return serveMcpRequest(req, res, rpc.parsed, {
        surface,
        serverName: serverName(target.kind === "kb" ? target.kb : null, names.length),
        version: opts.version,
        profile,
        principal,
        logger: opts.logger,
      });
    }

    if (method !== "GET" && method !== "HEAD") {
      return sendRpcError(res, 405, RpcCode.serverError, `method ${method} not allowed`, {
        ...cors,
        Allow: "GET",
      });
    }
    if (url.pathname === "/health")
      return sendJson(
        res,
        200,
        healthBody({ version: opts.version, kbs: names, ready: ready() }),
        cors,
      );
    if (url.pathname === "/ready") {
      const ok = ready();
      const reason =
        names.length === 0 ? "no KB is mounted" : "audit log unavailable (required mode)";
      return sendJson(res, ok ? 200 : 503, ok ? { ready: true } : { ready: false, reason }, cors);
    }
    const resourcePath = wellKnownResourcePath(url.pathname);
    if (resourcePath !== null && authOn) {
      return sendJson(
        res,
        200,
        wellKnownBody(baseUrl(req), resourcePath, names, opts.auth?.authorizationServers),
        cors,
      );
    }
    return sendRpcError(res, 404, RpcCode.serverError, `no route ${url.pathname}`, cors);
  }

  const server = createServer((req, res) => {
    inFlight++;
    res.on("close", () => {
      inFlight--;
      if (inFlight === 0 && drained) drained();
    });
    handle(req, res).catch((err: unknown) => {
      opts.logger.error(
        `http ${req.method} ${req.url}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`,
      );
      if (!res.headersSent) sendRpcError(res, 500, -32603, "internal error");
      else res.end();
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 39273, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const urlHost = host.includes(":") ? `[${host}]` : host;

  let closed: Promise<void> | null = null;
  const close = (): Promise<void> => {
    closed ??= (async () => {
      closing = true;
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      // A client stalled mid-body would otherwise hold shutdown forever; its call never began.
      for (const req of receiving) req.socket.destroy();
      if (inFlight > 0) await new Promise<void>((resolve) => (drained = resolve));
      server.closeAllConnections();
      await stopped;
      for (const mount of opts.mounts) await closeMount(mount);
    })();
    return closed;
  };

  return { url: `http://${urlHost}:${port}`, port, close };
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(", ") : value;
}
