/**
 * SDK glue: a low-level `Server` whose tools/list and tools/call go to a ToolSurface. The
 * descriptor list comes pre-built from the surface (never rebuilt per request); calls carry an
 * explicit principal. The metadata gate (D187) guards initialize, tools/list and ping.
 */
import { randomUUID } from "node:crypto";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  InitializeRequestSchema,
  ListToolsRequestSchema,
  PingRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import type { Principal } from "../auth/types.js";
import type { Transport } from "./context.js";
import type { ToolSurface, ToolsProfile } from "./surface.js";

/** JSON-RPC error code of a metadata request refused by the gate (message: exactly `forbidden`). */
export const FORBIDDEN_CODE = -32003;

export interface McpServerOptions {
  /** serverInfo.name: `cartographer`, or `cartographer:<kb>` (see serverName). */
  name: string;
  version: string;
  profile: ToolsProfile;
  principal: Principal;
  transport: Transport;
  /**
   * False → initialize / tools/list / ping answer `forbidden` (the principal cannot read any KB
   * of this endpoint). Default: allowed.
   */
  metadataGate?: () => boolean;
}

/** `cartographer`, or `cartographer:<kb>` on a per-KB endpoint of a server with 2+ KBs. */
export function serverName(perKbEndpointOf: string | null, mountedCount: number): string {
  return perKbEndpointOf !== null && mountedCount >= 2
    ? `cartographer:${perKbEndpointOf}`
    : "cartographer";
}

// HTTP builds a Server per request (stateless); the SDK's default validator is a new Ajv each
// time, a large share of a request's CPU. It only checks elicitation answers and keeps no
// per-server state, so one instance serves every Server.
const SHARED_VALIDATOR = new AjvJsonSchemaValidator();

export function createMcpServer(surface: ToolSurface, opts: McpServerOptions): Server {
  const server = new Server(
    { name: opts.name, version: opts.version },
    {
      capabilities: { tools: {} },
      jsonSchemaValidator: SHARED_VALIDATOR,
    },
  );
  const gate = opts.metadataGate ?? (() => true);
  const guard = (): void => {
    if (!gate()) throw Object.assign(new Error("forbidden"), { code: FORBIDDEN_CODE });
  };
  // The SDK answers initialize itself; we only put the gate in front of it.
  const initialize = (
    server as unknown as { _oninitialize(r: unknown): Promise<unknown> }
  )._oninitialize.bind(server);
  server.setRequestHandler(InitializeRequestSchema, async (request) => {
    guard();
    return (await initialize(request)) as never;
  });
  server.setRequestHandler(PingRequestSchema, async () => {
    guard();
    return {};
  });
  server.setRequestHandler(ListToolsRequestSchema, async () => {
    guard();
    return { tools: surface.descriptors(opts.profile).tools as never };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const ctx = { principal: opts.principal, transport: opts.transport, requestId: randomUUID() };
    return surface.callTool(request.params.name, request.params.arguments ?? {}, ctx);
  });
  return server;
}
