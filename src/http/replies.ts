/** Writing JSON and JSON-RPC error responses (every HTTP error body is a JSON-RPC error object). */
import type { ServerResponse } from "node:http";

/** JSON-RPC error codes used at the HTTP edge. */
export const RpcCode = {
  parseError: -32700,
  invalidRequest: -32600,
  /** Transport-level refusals (405, 413, 415, 403, 404, 503), as the SDK uses. */
  serverError: -32000,
  unauthorized: -32001,
} as const;

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    "Content-Type": "application/json",
    "Content-Length": String(Buffer.byteLength(text)),
  });
  res.end(text);
}

export function sendRpcError(
  res: ServerResponse,
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  sendJson(res, status, { jsonrpc: "2.0", id: null, error: { code, message } }, headers);
}
