/**
 * One MCP POST, stateless (the SDK's documented pattern): a fresh Server + transport per
 * request, JSON responses, both closed when the response is. The body was already read,
 * capped and parsed by the caller, which passes it as `parsedBody`.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { canReadAnyKb } from "../auth/decide.js";
import type { Principal } from "../auth/types.js";
import type { Logger } from "../logger.js";
import { createMcpServer } from "../mcp/server.js";
import type { ToolSurface, ToolsProfile } from "../mcp/surface.js";

export interface McpExchange {
  surface: ToolSurface;
  serverName: string;
  version: string;
  profile: ToolsProfile;
  principal: Principal;
  logger: Logger;
}

export async function serveMcpRequest(
  req: IncomingMessage,
  res: ServerResponse,
  parsedBody: unknown,
  x: McpExchange,
): Promise<void> {
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
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  res.on("close", () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, parsedBody);
}
