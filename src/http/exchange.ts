/**
 * The request/response values the HTTP core works on (no socket): what arrived — method,
 * request-target, header fields as received — and what to answer — status, headers, body. The
 * node adapter (server.ts) builds one from an IncomingMessage and writes the other back; route
 * tests build them directly.
 */

export type BodyRead = { ok: true; bytes: Buffer } | { ok: false; reason: "too_large" | "aborted" };

export interface HttpRequest {
  readonly method: string;
  /** The request-target: path and query (`/mcp/a?kb=a`). */
  readonly target: string;
  /** Header fields in arrival order, names lower-cased, repeats kept (node's rawHeaders). */
  readonly headers: readonly (readonly [string, string])[];
  /** The body under a byte cap (`too_large` as soon as it is over; `aborted` if the client left). */
  readBody(maxBytes: number): Promise<BodyRead>;
  /**
   * True when this request came in on a connection over the connection cap: only /health and
   * /ready are served on it (so an operator can still see the server), everything else is 503.
   */
  readonly overCapacity?: boolean;
  /** The peer's IP address (`/metrics` without a token answers loopback peers only). */
  readonly remoteAddress?: string;
}

export interface HttpReply {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** null: no body (204, 202), or the body is `stream`. */
  readonly body: string | null;
  /**
   * A body written as it is produced (an MCP call's SSE stream: progress notifications, then
   * the result); `body` is null then. Cancelled when the client goes away.
   */
  readonly stream?: ReadableStream<Uint8Array>;
}

/** Every value of header `name` (lower-case), in arrival order. */
export function headerValues(req: HttpRequest, name: string): string[] {
  return req.headers.filter(([n]) => n === name).map(([, v]) => v);
}

/** The value of header `name`, repeats joined with ", " (as node does for most fields). */
export function headerOf(req: HttpRequest, name: string): string | undefined {
  const values = headerValues(req, name);
  return values.length === 0 ? undefined : values.join(", ");
}

/** A request value over an in-memory body (route tests, and anything with the body at hand). */
export function requestOf(
  method: string,
  target: string,
  headers: Record<string, string> | readonly (readonly [string, string])[] = [],
  body: string | Buffer = "",
): HttpRequest {
  const list = Array.isArray(headers)
    ? (headers as readonly (readonly [string, string])[]).map(
        ([n, v]) => [n.toLowerCase(), v] as const,
      )
    : Object.entries(headers).map(([n, v]) => [n.toLowerCase(), v] as const);
  const bytes = typeof body === "string" ? Buffer.from(body) : body;
  return {
    method,
    target,
    headers: list,
    readBody: async (max) =>
      bytes.length > max ? { ok: false, reason: "too_large" } : { ok: true, bytes },
  };
}
