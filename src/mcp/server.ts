/**
 * SDK glue: a low-level `Server` whose tools/list and tools/call go to a ToolSurface. The
 * descriptor list comes pre-built from the surface (never rebuilt per request); calls carry an
 * explicit principal. The metadata gate (D187) and the params check run on every request before
 * the SDK dispatches it (request-guard.ts), installed when the server connects.
 */
import { randomUUID } from "node:crypto";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { Transport as SdkTransport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  PingRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import type { Principal } from "../auth/types.js";
import type { Transport } from "./context.js";
import { guardRequests } from "./request-guard.js";
import type { ToolSurface, ToolsProfile } from "./surface.js";

export { FORBIDDEN_CODE } from "./request-guard.js";

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

/** A low-level SDK Server that installs the request guard on every transport it connects to. */
class GuardedServer extends Server {
  readonly #gate: () => boolean;

  constructor(info: { name: string; version: string }, gate: () => boolean) {
    super(info, { capabilities: { tools: {} }, jsonSchemaValidator: SHARED_VALIDATOR });
    this.#gate = gate;
  }

  override async connect(transport: SdkTransport): Promise<void> {
    await super.connect(transport);
    guardRequests(transport, this.#gate);
  }
}

export function createMcpServer(surface: ToolSurface, opts: McpServerOptions): Server {
  // The gate runs in the request guard, before dispatch; the handlers below only serve.
  const server = new GuardedServer(
    { name: opts.name, version: opts.version },
    opts.metadataGate ?? (() => true),
  );
  server.setRequestHandler(PingRequestSchema, async () => ({}));
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: surface.descriptors(opts.profile).tools as never,
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const ctx = { principal: opts.principal, transport: opts.transport, requestId: randomUUID() };
    return surface.callTool(request.params.name, request.params.arguments ?? {}, ctx);
  });
  return server;
}
