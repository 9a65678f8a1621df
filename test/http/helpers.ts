/** Raw HTTP requests with full control of headers (Host included), and a server over mounts. */
import { request } from "node:http";
import type { AuditSink } from "../../src/audit/types.js";
import type { HttpCore } from "../../src/http/core.js";
import { requestOf } from "../../src/http/exchange.js";
import {
  type HttpServerHandle,
  type HttpServerOptions,
  startHttpServer,
} from "../../src/http/server.js";
import type { KbSettings } from "../../src/kb/core/types.js";
import { type Logger, silentLogger } from "../../src/logger.js";
import { type Cartographer, createCartographer } from "../../src/mcp/app.js";
import type { MountedKb } from "../../src/runtime/mount.js";
import type { ToolSpec } from "../../src/tools/spec.js";

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  json: () => unknown;
}

export function raw(
  port: number,
  opts: { method?: string; path: string; headers?: Record<string, string>; body?: string | Buffer },
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        method: opts.method ?? "POST",
        path: opts.path,
        headers: opts.headers,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const body = Buffer.concat(chunks).toString("utf8");
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body,
            json: () => JSON.parse(body),
          });
        });
      },
    );
    req.on("error", reject);
    if (opts.body !== undefined) req.write(opts.body);
    req.end();
  });
}

export const MCP_HEADERS = {
  "Content-Type": "application/json",
  Accept: "application/json, text/event-stream",
};

export const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "raw", version: "1" },
  },
});

/** POSTs an initialize to `path` and returns the response. */
export function postInit(
  port: number,
  path: string,
  headers: Record<string, string> = {},
): Promise<RawResponse> {
  return raw(port, { path, headers: { ...MCP_HEADERS, ...headers }, body: INITIALIZE });
}

/**
 * An HTTP server over already-mounted KBs, composed as `serve` does: the app (composition
 * root) adopts the mounts; close() stops HTTP, then closes the app (drain, mounts).
 */
export async function serveMounts(
  mounts: readonly MountedKb[],
  opts: Omit<HttpServerOptions, "app" | "version"> & {
    version?: string;
    logger?: Logger;
    audit?: AuditSink | null;
    toolsFor?: (settings: KbSettings) => readonly ToolSpec[];
  } = {},
): Promise<HttpServerHandle & { app: Cartographer }> {
  const { logger, audit, toolsFor, version, ...http } = opts;
  const app = await createCartographer({
    mounts,
    logger: logger ?? silentLogger,
    ...(audit !== undefined ? { audit } : {}),
    ...(toolsFor ? { toolsFor } : {}),
  });
  const server = await startHttpServer({ app, port: 0, version: version ?? "1", ...http });
  return {
    app,
    url: server.url,
    port: server.port,
    close: () => server.close().then(() => app.close()),
  };
}

/**
 * `raw` without a socket: the same request as a value through the HTTP core, the reply in the
 * same shape (header names lower-cased). A `Host` is sent as node's client would.
 */
export async function viaCore(
  core: HttpCore,
  opts: { method?: string; path: string; headers?: Record<string, string>; body?: string | Buffer },
): Promise<RawResponse> {
  const reply = await core.handle(
    requestOf(
      opts.method ?? "POST",
      opts.path,
      { Host: "127.0.0.1:39273", ...opts.headers },
      opts.body ?? "",
    ),
  );
  if (reply === null) throw new Error("no reply (client went away)");
  const headers = Object.fromEntries(
    Object.entries(reply.headers).map(([k, v]) => [k.toLowerCase(), v]),
  );
  const body = reply.body ?? "";
  return { status: reply.status, headers, body, json: () => JSON.parse(body) };
}
