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
import type { HttpReply, HttpRequest } from "./exchange.js";

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
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    const response = await transport.handleRequest(webRequestOf(req), { parsedBody });
    const body = response.body === null ? null : await response.text();
    const headers: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      headers[name] = value;
    });
    if (body !== null) headers["content-length"] = String(Buffer.byteLength(body));
    return { status: response.status, headers, body };
  } finally {
    await transport.close();
    await server.close();
  }
}

/** The web Request the SDK transport reads headers from (the body is passed parsed). */
function webRequestOf(req: HttpRequest): Request {
  const headers = new Headers();
  for (const [name, value] of req.headers) {
    try {
      headers.append(name, value);
    } catch {
      // A field the web Headers class refuses (node's parser is more lenient) is not one the
      // SDK reads (Accept, Content-Type, Mcp-*): dropped rather than failing the request.
    }
  }
  return new Request(new URL(req.target, "http://localhost"), { method: req.method, headers });
}
