/**
 * Checks every JSON-RPC request before the SDK dispatches it, through the transport's public
 * `onmessage` hook (no private SDK member). Two checks, in this order:
 *   1. metadata gate (D187): initialize, tools/list, ping and the resource/prompt listings and
 *      completions answer `forbidden` (-32003) when the principal cannot read any KB of the
 *      endpoint;
 *   2. params (docs/decisions.md "Malformed params of a served method answer -32602"): a
 *      request of a method we serve whose params do not match the protocol schema answers -32602
 *      Invalid params with a one-line message. Without this the SDK's schema parse throws a
 *      ZodError, answered as -32603 with the raw issue dump.
 * Methods we do not serve pass through (the SDK answers -32601).
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  CallToolRequestSchema,
  CompleteRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  InitializeRequestSchema,
  isJSONRPCRequest,
  type JSONRPCRequest,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  PingRequestSchema,
  ReadResourceRequestSchema,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";

/** JSON-RPC error code of a metadata request refused by the gate (message: exactly `forbidden`). */
export const FORBIDDEN_CODE = -32003;

// Listings and templates are metadata too: a principal who can read no KB of the
// endpoint learns nothing from them either.
const GATED = new Set([
  "initialize",
  "tools/list",
  "ping",
  "resources/list",
  "resources/templates/list",
  "prompts/list",
  "completion/complete",
]);

interface SafeParser {
  safeParse(value: unknown): {
    success: boolean;
    error?: { issues: { path: PropertyKey[]; message: string }[] };
  };
}

const SCHEMAS: Record<string, SafeParser> = {
  initialize: InitializeRequestSchema,
  "tools/list": ListToolsRequestSchema,
  "tools/call": CallToolRequestSchema,
  ping: PingRequestSchema,
  "resources/list": ListResourcesRequestSchema,
  "resources/read": ReadResourceRequestSchema,
  "resources/templates/list": ListResourceTemplatesRequestSchema,
  "resources/subscribe": SubscribeRequestSchema,
  "resources/unsubscribe": UnsubscribeRequestSchema,
  "prompts/list": ListPromptsRequestSchema,
  "prompts/get": GetPromptRequestSchema,
  "completion/complete": CompleteRequestSchema,
  "logging/setLevel": SetLevelRequestSchema,
};

export interface Refusal {
  code: number;
  message: string;
}

/** The refusal of `request`, or null when the SDK may dispatch it. */
export function checkRequest(request: JSONRPCRequest, gate: () => boolean): Refusal | null {
  if (GATED.has(request.method) && !gate()) return { code: FORBIDDEN_CODE, message: "forbidden" };
  const schema = SCHEMAS[request.method];
  if (!schema) return null;
  const parsed = schema.safeParse(request);
  if (parsed.success) return null;
  const issue = parsed.error?.issues[0];
  const where = issue && issue.path.length > 0 ? issue.path.map(String).join(".") : "params";
  return {
    code: ErrorCode.InvalidParams,
    message: `Invalid params for ${request.method}: ${where}: ${issue?.message ?? "does not match the schema"}`,
  };
}

/**
 * Installs the check on a connected transport: a refused request is answered on the transport
 * (so stdio's pending count and HTTP's response mapping see a normal answer) and never reaches
 * the SDK.
 */
export function guardRequests(transport: Transport, gate: () => boolean): void {
  const deliver = transport.onmessage;
  transport.onmessage = (message, extra) => {
    if (isJSONRPCRequest(message)) {
      const refusal = checkRequest(message, gate);
      if (refusal !== null) {
        transport
          .send({ jsonrpc: "2.0", id: message.id, error: refusal })
          .catch((err: unknown) => transport.onerror?.(err as Error));
        return;
      }
    }
    deliver?.call(transport, message, extra);
  };
}
