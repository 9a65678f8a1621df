/**
 * The ONE place an MCP POST's Accept header is interpreted. The Streamable HTTP spec asks
 * clients to list both `application/json` and `text/event-stream`; plain JSON clients (Go's
 * e2e suite, `curl -H 'Content-Type: application/json'`) send neither or only JSON, and Go
 * serves them. So (docs/decisions.md, "An MCP POST is answered in JSON unless"): JSON is answered
 * when the client accepts JSON or sends no Accept; SSE only when the client names
 * `text/event-stream`; 406 only when it accepts neither.
 */

export interface AcceptedReplies {
  /** `application/json` is acceptable (no Accept at all, or a range matching it with q > 0). */
  json: boolean;
  /** `text/event-stream` is named explicitly with q > 0: only then is SSE "asked for". */
  eventStream: boolean;
}

/** What an Accept header value (repeats joined with ", ") allows of the two MCP reply types. */
export function acceptedReplies(header: string | undefined): AcceptedReplies {
  if (header === undefined || header.trim() === "") return { json: true, eventStream: false };
  let json = false;
  let eventStream = false;
  for (const range of header.split(",")) {
    const [essence = "", ...params] = range.split(";");
    const type = essence.trim().toLowerCase();
    if (qualityOf(params) <= 0) continue;
    if (type === "application/json" || type === "application/*" || type === "*/*") json = true;
    if (type === "text/event-stream") eventStream = true;
  }
  return { json, eventStream };
}

/** The `q` parameter of one media range (1 when absent; 0 for an unreadable one, as RFC 9110 allows none). */
function qualityOf(params: string[]): number {
  for (const p of params) {
    const [name = "", value = ""] = p.split("=");
    if (name.trim().toLowerCase() !== "q") continue;
    const q = Number(value.trim());
    return Number.isFinite(q) ? q : 0;
  }
  return 1;
}
