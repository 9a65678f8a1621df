/**
 * One MCP POST, stateless (the SDK's documented pattern): a fresh Server + web-standard
 * transport per request, JSON responses, both closed once the answer is complete. The body was
 * already read, capped and parsed by the caller, which passes it as `parsedBody`. Request value
 * in, reply value out: no socket here.
 */
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { canReadAnyKb } from "../auth/decide.js";
import type { Principal } from "../auth/types.js";
import type { Logger } from "../logger.js";
import { createMcpServer } from "../mcp/server.js";
import type { ToolSurface, ToolsProfile } from "../mcp/surface.js";
import { acceptedReplies } from "./accept.js";
import { type HttpReply, type HttpRequest, headerOf } from "./exchange.js";

export interface McpExchange {
  surface: ToolSurface;
  serverName: string;
  version: string;
  profile: ToolsProfile;
  principal: Principal;
  logger: Logger;
}

export async function serveMcpRequest(
  req: HttpRequest,
  parsedBody: unknown,
  x: McpExchange,
): Promise<HttpReply> {
  const kbs = [...x.surface.kbNames];
  const server = createMcpServer(x.surface, {
    name: x.serverName,
    version: x.version,
    profile: x.profile,
    principal: x.principal,
    transport: "http",
    // D187: metadata needs read access to at least one KB this endpoint reaches.
    metadataGate: () => canReadAnyKb(x.principal.policy, kbs),
  });
  // A call asking for progress gets an SSE response, written as it goes: the notifications,
  // then the result; so does a client that accepts only SSE. Everything else stays one JSON
  // response, whatever else Accept lists (accept.ts; the route answered 406 for neither).
  const accepted = acceptedReplies(headerOf(req, "accept"));
  const sse = accepted.eventStream && (!accepted.json || wantsProgress(parsedBody));
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: !sse,
  });
  await server.connect(transport);
  let streaming = false;
  try {
    const response = await transport.handleRequest(webRequestOf(req), { parsedBody });
    if (sse && response.body !== null && isEventStream(response)) {
      streaming = true;
      const headers: Record<string, string> = {};
      response.headers.forEach((value, name) => {
        headers[name] = value;
      });
      const done = async () => {
        await transport.close();
        await server.close();
      };
      return { status: response.status, headers, body: null, stream: closing(response.body, done) };
    }
    const body = response.body === null ? null : await response.text();
    const headers: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      headers[name] = value;
    });
    if (body !== null) headers["content-length"] = String(Buffer.byteLength(body));
    return { status: response.status, headers, body };
  } finally {
    if (!streaming) {
      await transport.close();
      await server.close();
    }
  }
}

/** A single tools/call request carrying `_meta.progressToken`. */
function wantsProgress(body: unknown): boolean {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return false;
  const message = body as { method?: unknown; params?: { _meta?: { progressToken?: unknown } } };
  const token = message.params?._meta?.progressToken;
  return (
    message.method === "tools/call" && (typeof token === "string" || typeof token === "number")
  );
}

function isEventStream(response: Response): boolean {
  return (response.headers.get("content-type") ?? "").includes("text/event-stream");
}

/** `body`, running `done` once it ends or is cancelled (the Server lives as long as its stream). */
function closing(
  body: ReadableStream<Uint8Array>,
  done: () => Promise<void>,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let finished = false;
  const finish = async () => {
    if (finished) return;
    finished = true;
    await done().catch(() => {});
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { value, done: end } = await reader.read();
        if (end) {
          controller.close();
          await finish();
        } else controller.enqueue(value);
      } catch (err) {
        controller.error(err);
        await finish();
      }
    },
    async cancel() {
      await reader.cancel().catch(() => {});
      await finish();
    },
  });
}

/**
 * The web Request the SDK transport reads headers from (the body is passed parsed). Accept was
 * negotiated here already, so the SDK gets the one value its check wants (it refuses anything
 * but both types, which plain JSON clients do not send). Authorization was consumed by the
 * route and goes no further: the SDK hands request headers to every handler (`requestInfo`),
 * and a bearer is never passed downstream (docs/auth.md "OAuth 2.1 (identity provider)").
 */
function webRequestOf(req: HttpRequest): Request {
  const headers = new Headers({ accept: "application/json, text/event-stream" });
  for (const [name, value] of req.headers) {
    if (name === "accept" || name === "authorization") continue;
    try {
      headers.append(name, value);
    } catch {
      // A field the web Headers class refuses (node's parser is more lenient) is not one the
      // SDK reads (Accept, Content-Type, Mcp-*): dropped rather than failing the request.
    }
  }
  return new Request(new URL(req.target, "http://localhost"), { method: req.method, headers });
}
