/**
 * The request body of an MCP POST: read under a byte cap, then classified as JSON-RPC here,
 * once, before the SDK transport sees it (the SDK would call well-formed JSON that is not a
 * message a -32700 parse error; JSON-RPC 2.0 §5.1 reserves -32700 for invalid JSON).
 */
import type { IncomingMessage } from "node:http";
import { JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";
import type { BodyRead } from "./exchange.js";
import { RpcCode } from "./replies.js";

export type { BodyRead } from "./exchange.js";

/**
 * Most messages one POST may batch (docs/decisions.md "A JSON-RPC batch POST carries at most 32
 * messages"): a batch runs on one request, so a large one of expensive calls would hold a
 * connection and the event loop for its whole length.
 */
export const DEFAULT_MAX_BATCH_MESSAGES = 32;

/**
 * The whole body, or `too_large` as soon as it exceeds `maxBytes` (a declared Content-Length
 * over the cap is refused before reading). The rest of an oversized body is drained and
 * discarded so the client can read the 413.
 */
export function readBody(req: IncomingMessage, maxBytes: number): Promise<BodyRead> {
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > maxBytes) {
    req.resume();
    return Promise.resolve({ ok: false, reason: "too_large" });
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (result: BodyRead) => {
      if (settled) return;
      settled = true;
      resolve(result);
    };
    req.on("data", (chunk: Buffer) => {
      if (settled) return;
      size += chunk.length;
      if (size > maxBytes) {
        chunks.length = 0;
        settle({ ok: false, reason: "too_large" });
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => settle({ ok: true, bytes: Buffer.concat(chunks) }));
    req.on("aborted", () => settle({ ok: false, reason: "aborted" }));
    req.on("error", () => settle({ ok: false, reason: "aborted" }));
  });
}

export type RpcBody =
  | { ok: true; parsed: unknown }
  | { ok: false; code: typeof RpcCode.parseError | typeof RpcCode.invalidRequest; message: string };

const SHAPE =
  'expected an object with "jsonrpc": "2.0" and a "method" (or a response), or a non-empty array of them';

/**
 * JSON-RPC classification of a body: not JSON → -32700 Parse error; JSON that is not a message,
 * an empty batch, or a batch with a non-message → -32600 Invalid Request. Uses the SDK's own
 * message schema, so whatever passes here the transport accepts. A batch longer than `maxBatch`
 * is one Invalid Request naming the limit, before any of it runs.
 */
export function parseRpcBody(
  bytes: Buffer,
  maxBatch: number = DEFAULT_MAX_BATCH_MESSAGES,
): RpcBody {
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString("utf8"));
  } catch {
    return { ok: false, code: RpcCode.parseError, message: "Parse error: Invalid JSON" };
  }
  if (Array.isArray(parsed)) {
    // JSON-RPC 2.0 §6: an empty batch is one Invalid Request (the SDK would answer 202).
    if (parsed.length === 0) return invalid("empty batch");
    if (parsed.length > maxBatch)
      return invalid(
        `batch of ${parsed.length} messages is over the limit of ${maxBatch} per request; send it as several requests`,
      );
    const bad = parsed.findIndex((m) => !JSONRPCMessageSchema.safeParse(m).success);
    if (bad !== -1) return invalid(`batch element ${bad} is not a JSON-RPC 2.0 message; ${SHAPE}`);
  } else if (!JSONRPCMessageSchema.safeParse(parsed).success) {
    return invalid(`not a JSON-RPC 2.0 message; ${SHAPE}`);
  }
  return { ok: true, parsed };
}

function invalid(why: string): RpcBody {
  return { ok: false, code: RpcCode.invalidRequest, message: `Invalid Request: ${why}` };
}
