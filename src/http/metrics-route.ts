/**
 * `GET /metrics` (docs/operations.md "Metrics"): the Prometheus text of this server's metrics,
 * off unless configured. With a metrics token every scrape must send it as a bearer, wherever
 * it comes from; without one only loopback peers are answered (docs/decisions.md "Metrics: own
 * token or loopback only"). The MCP tokens are not accepted here: a scraper gets no tool access
 * and a client's token does not show the server's internals.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { parseBearer } from "../auth/bearer.js";
import { type HttpReply, headerOf } from "./exchange.js";
import type { MetricsEndpoint } from "./options.js";
import { isLoopbackPeer } from "./origin-guard.js";
import { RpcCode, rpcError } from "./replies.js";
import type { RouteContext } from "./route-context.js";

export const METRICS_PATH = "/metrics";

export async function serveMetricsRoute({ req, opts, cors }: RouteContext): Promise<HttpReply> {
  const endpoint = opts.metrics as MetricsEndpoint;
  if (endpoint.token !== null) {
    const sent = parseBearer(headerOf(req, "authorization"));
    if (sent === null || !sameSecret(sent, endpoint.token))
      return rpcError(
        401,
        RpcCode.unauthorized,
        "unauthorized: /metrics needs the metrics token as a bearer",
        {
          ...cors,
          "WWW-Authenticate": "Bearer",
        },
      );
  } else if (!isLoopbackPeer(req.remoteAddress)) {
    return rpcError(
      403,
      RpcCode.serverError,
      "forbidden: /metrics answers loopback peers only; set metrics.token_env to scrape from elsewhere",
      cors,
    );
  }
  const { contentType, body } = await endpoint.metrics.scrape();
  return {
    status: 200,
    headers: {
      ...cors,
      "Content-Type": contentType,
      "Content-Length": String(Buffer.byteLength(body)),
      "Cache-Control": "no-store",
    },
    body: req.method === "HEAD" ? null : body,
  };
}

/** Compared in constant time over digests, so neither the content nor the length leaks. */
function sameSecret(sent: string, token: string): boolean {
  const digest = (s: string) => createHash("sha256").update(s).digest();
  return timingSafeEqual(digest(sent), digest(token));
}
