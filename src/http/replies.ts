/** Reply values: JSON bodies and JSON-RPC error objects (every HTTP error body is one). */
import type { HttpReply } from "./exchange.js";

/** JSON-RPC error codes used at the HTTP edge. */
export const RpcCode = {
  parseError: -32700,
  invalidRequest: -32600,
  /** Transport-level refusals (405, 413, 415, 403, 404, 503), as the SDK uses. */
  serverError: -32000,
  unauthorized: -32001,
} as const;

export function jsonReply(
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): HttpReply {
  const text = JSON.stringify(body);
  return {
    status,
    headers: {
      ...headers,
      "Content-Type": "application/json",
      "Content-Length": String(Buffer.byteLength(text)),
    },
    body: text,
  };
}

export function rpcError(
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
): HttpReply {
  return jsonReply(status, { jsonrpc: "2.0", id: null, error: { code, message } }, headers);
}
