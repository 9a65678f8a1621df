/**
 * What the Go e2e suite's `curl` calls send: a JSON-RPC POST with only
 * `Content-Type: application/json` (no Accept) to `<url>?kb=<name>`, optionally a bearer.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

export interface PlainReply {
  status: number;
  contentType: string;
  /** The JSON-RPC message answered (null when the body is not JSON). */
  body: { result?: CallToolResult; error?: { code: number; message: string } } | null;
}

export async function plainPost(
  url: string,
  message: unknown,
  token?: string,
): Promise<PlainReply> {
  const headers: Record<string, string> = { "Content-Type": "application/json" };
  if (token !== undefined) headers.Authorization = `Bearer ${token}`;
  const res = await fetch(url, { method: "POST", headers, body: JSON.stringify(message) });
  const text = await res.text();
  let body: PlainReply["body"] = null;
  try {
    body = JSON.parse(text);
  } catch {
    body = null;
  }
  return { status: res.status, contentType: res.headers.get("content-type") ?? "", body };
}

let nextId = 1;

/** A tools/call as the Go scripts send it; the tool result, after checking the HTTP answer. */
export async function plainCall(
  endpoint: string,
  name: string,
  args: Record<string, unknown>,
  token?: string,
): Promise<CallToolResult> {
  const reply = await plainPost(
    endpoint,
    { jsonrpc: "2.0", id: nextId++, method: "tools/call", params: { name, arguments: args } },
    token,
  );
  if (reply.status !== 200 || reply.body?.result === undefined)
    throw new Error(`${name}: HTTP ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.result;
}

export const textOf = (r: CallToolResult) =>
  r.content.map((c) => (c.type === "text" ? c.text : "")).join("");
