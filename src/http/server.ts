/**
 * The node adapter of the HTTP core (design.md §6; docs/decisions.md "The HTTP core is request
 * value"): listen, limits (connection cap, header/request/keep-alive timeouts), turning an
 * IncomingMessage into a request value and a reply value back into a response, draining on close.
 * Everything a request means is decided in core.ts.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { readBody } from "./body.js";
import { ConnectionCap } from "./connection-cap.js";
import { createHttpCore } from "./core.js";
import type { HttpReply, HttpRequest } from "./exchange.js";
import {
  authRequired,
  DEFAULT_HEADERS_TIMEOUT_MS,
  DEFAULT_KEEP_ALIVE_TIMEOUT_MS,
  DEFAULT_MAX_CONNECTIONS,
  DEFAULT_REQUEST_TIMEOUT_MS,
  type HttpServerHandle,
  type HttpServerOptions,
} from "./options.js";
import { isLoopbackName } from "./origin-guard.js";
import { rpcError } from "./replies.js";

export type { HttpServerHandle, HttpServerOptions } from "./options.js";

export async function startHttpServer(opts: HttpServerOptions): Promise<HttpServerHandle> {
  const host = opts.host ?? "127.0.0.1";
  const logger = opts.app.logger;
  const authOn = authRequired(opts.auth);
  if (!authOn && !isLoopbackName(host)) {
    if (!opts.allowInsecureNoAuth) {
      throw new Error(
        `refusing to listen on ${host} with auth off: anyone who can reach it could read and write every KB; configure tokens, bind 127.0.0.1, or pass --insecure-no-auth`,
      );
    }
    logger.warn(
      `listening on ${host} with auth OFF (--insecure-no-auth): every client is admin on every KB`,
    );
  }
  const core = createHttpCore(opts);
  const maxConnections = opts.maxConnections ?? DEFAULT_MAX_CONNECTIONS;
  const cap = new ConnectionCap(maxConnections, logger);
  const metrics = opts.metrics?.metrics;
  metrics?.watchConnections({
    get open() {
      return cap.open;
    },
    max: maxConnections,
  });
  const headersTimeout = opts.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS;
  const requestTimeout = Math.max(
    opts.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
    headersTimeout,
  );

  let inFlight = 0;
  /** Requests still receiving their body: no call has started, so close() may cut them. */
  const receiving = new Set<IncomingMessage>();
  let drained: (() => void) | null = null;

  const requestValue = (req: IncomingMessage): HttpRequest => {
    const headers: [string, string][] = [];
    for (let i = 0; i + 1 < req.rawHeaders.length; i += 2)
      headers.push([(req.rawHeaders[i] as string).toLowerCase(), req.rawHeaders[i + 1] as string]);
    return {
      method: req.method ?? "GET",
      target: req.url ?? "/",
      headers,
      overCapacity: cap.isOver(req.socket),
      ...(req.socket.remoteAddress ? { remoteAddress: req.socket.remoteAddress } : {}),
      readBody: (max) => {
        receiving.add(req);
        return readBody(req, max).finally(() => receiving.delete(req));
      },
    };
  };

  const server = createServer(
    {
      headersTimeout,
      requestTimeout,
      keepAliveTimeout: opts.keepAliveTimeoutMs ?? DEFAULT_KEEP_ALIVE_TIMEOUT_MS,
      // Node checks the two timeouts on this interval (default 30 s, longer than either).
      connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(headersTimeout / 4))),
    },
    (req, res) => {
      inFlight++;
      res.on("close", () => {
        inFlight--;
        if (inFlight === 0 && drained) drained();
      });
      core
        .handle(requestValue(req))
        .then((reply) => {
          if (reply === null) return;
          metrics?.httpRequest(req.url ?? "/", req.method ?? "GET", reply.status);
          write(res, reply);
        })
        .catch((err: unknown) => {
          logger.error(
            `http ${req.method} ${req.url}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`,
          );
          if (!res.headersSent) write(res, rpcError(500, -32603, "internal error"));
          else res.end();
        });
    },
  );
  server.on("connection", (socket) => {
    if (!cap.admit(socket)) socket.destroy();
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
      core.stopAccepting();
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      // A client stalled mid-body would otherwise hold shutdown forever; its call never began.
      for (const req of receiving) req.socket.destroy();
      if (inFlight > 0) await new Promise<void>((resolve) => (drained = resolve));
      server.closeAllConnections();
      await stopped;
    })();
    return closed;
  };

  return { url: `http://${urlHost}:${port}`, port, close };
}

function write(res: ServerResponse, reply: HttpReply): void {
  res.writeHead(reply.status, reply.headers);
  if (reply.stream) {
    void pipeStream(res, reply.stream);
    return;
  }
  res.end(reply.body ?? undefined);
}

/** Writes each chunk as it comes (SSE); a client that leaves cancels the stream. */
async function pipeStream(res: ServerResponse, stream: ReadableStream<Uint8Array>): Promise<void> {
  const reader = stream.getReader();
  res.on("close", () => void reader.cancel().catch(() => {}));
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      res.write(value);
    }
  } catch {
    // The producer failed or was cancelled: end what was sent.
  }
  res.end();
}
