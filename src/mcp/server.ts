/**
 * SDK glue: a low-level `Server` whose tools/list and tools/call go to a ToolSurface. The
 * descriptor list comes pre-built from the surface (never rebuilt per request); calls carry an
 * explicit principal. The metadata gate (D187) and the params check run on every request before
 * the SDK dispatches it (request-guard.ts), installed when the server connects.
 */
import { randomUUID } from "node:crypto";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { Protocol, type RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { Transport as SdkTransport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  type CallToolRequest,
  type CallToolResult,
  ListToolsRequestSchema,
  PingRequestSchema,
  type ServerCapabilities,
  type ServerNotification,
  type ServerRequest,
} from "@modelcontextprotocol/sdk/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import type { jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js";
import { z } from "zod";
import type { Principal } from "../auth/types.js";
import { isContentSurface } from "./content-surface.js";
import type { CallContext, ProgressFn, Transport } from "./context.js";
import { guardRequests } from "./request-guard.js";
import { contentCapabilities, installContentHandlers } from "./server-content.js";
import type { DescriptorList, ToolSurface, ToolsProfile } from "./surface.js";

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
// per-server state, so one instance serves every Server. Built on first use: constructing Ajv
// took ~20 ms of every stdio start, and nothing here elicits yet.
let ajv: AjvJsonSchemaValidator | undefined;
const SHARED_VALIDATOR: jsonSchemaValidator = {
  getValidator: (schema) => {
    ajv ??= new AjvJsonSchemaValidator();
    return ajv.getValidator(schema);
  },
};

/** A low-level SDK Server that installs the request guard on every transport it connects to. */
class GuardedServer extends Server {
  readonly #gate: () => boolean;

  constructor(
    info: { name: string; version: string },
    gate: () => boolean,
    capabilities: ServerCapabilities,
  ) {
    super(info, { capabilities, jsonSchemaValidator: SHARED_VALIDATOR });
    this.#gate = gate;
  }

  override async connect(transport: SdkTransport): Promise<void> {
    await super.connect(transport);
    guardRequests(transport, this.#gate);
  }
}

export function createMcpServer(surface: ToolSurface, opts: McpServerOptions): Server {
  // stdio is one long session: it can be told about writes and warnings later (docs/decisions.md
  // "Only a live session (stdio) declares").
  const live = opts.transport === "stdio";
  const content = isContentSurface(surface) ? surface : null;
  // The gate runs in the request guard, before dispatch; the handlers below only serve.
  const server = new GuardedServer(
    { name: opts.name, version: opts.version },
    opts.metadataGate ?? (() => true),
    content ? { tools: {}, ...contentCapabilities(live) } : { tools: {} },
  );
  const context = (): CallContext => ({
    principal: opts.principal,
    transport: opts.transport,
    requestId: randomUUID(),
  });
  server.setRequestHandler(PingRequestSchema, async () => ({}));
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: surface.descriptors(opts.profile).tools as never,
  }));
  setToolCallHandler(server, async (request, extra) => {
    const token = request.params._meta?.progressToken;
    // An unknown tool answers `tool not found` with no progress at all: a client shown 0 and
    // 1/1 first would take it for a call that ran.
    if (token === undefined || !callable(surface, request.params.name))
      return surface.callTool(request.params.name, request.params.arguments ?? {}, context());
    const progress = progressSender(token, extra.sendNotification);
    progress(0);
    try {
      return await surface.callTool(request.params.name, request.params.arguments ?? {}, {
        ...context(),
        progress,
      });
    } finally {
      progress.finish();
    }
  });
  if (content) installContentHandlers(server, content, context, live);
  return server;
}

const toolNames = new WeakMap<DescriptorList, ReadonlySet<string>>();

/** Whether the surface has a tool of that name (its full list holds every callable tool). */
function callable(surface: ToolSurface, name: string): boolean {
  const list = surface.descriptors("full");
  let names = toolNames.get(list);
  if (names === undefined) {
    names = new Set(list.tools.map((tool) => tool.name));
    toolNames.set(list, names);
  }
  return names.has(name);
}

type ToolCallHandler = (
  request: CallToolRequest,
  extra: RequestHandlerExtra<ServerRequest, ServerNotification>,
) => Promise<CallToolResult>;

/**
 * tools/call as Protocol's registration parses it: the method alone. The request guard of every
 * connected transport has already parsed the whole request with CallToolRequestSchema
 * (answering -32602 on a mismatch, request-guard.ts), so parsing it again here was a second zod
 * pass over every call (docs/decisions.md "one pass per request").
 */
const TOOL_CALL_METHOD = z.looseObject({ method: z.literal("tools/call") });

/**
 * Registers the tools/call handler with Protocol's own registration, not Server's override. The
 * override parses the request again with CallToolRequestSchema and parses our result with
 * CallToolResultSchema; every result here is a `textResult` (one text item, maybe `isError`),
 * valid by construction. Its task branch cannot run: we declare no task capability, so Protocol
 * refuses a task-augmented call before the handler (docs/decisions.md "tools/call is registered
 * with `Protocol.setRequestHandler`").
 */
export function setToolCallHandler(server: Server, handler: ToolCallHandler): void {
  (Protocol.prototype.setRequestHandler as (this: Server, ...a: unknown[]) => void).call(
    server,
    TOOL_CALL_METHOD,
    handler,
  );
}

/**
 * `notifications/progress` for one call: strictly increasing values only (the protocol's rule;
 * a handler repeating or going back is dropped), and `finish` closes at done = total.
 */
export function progressSender(
  token: string | number,
  send: (n: ServerNotification) => Promise<void>,
): ProgressFn & { finish(): void } {
  let last = -1;
  let lastTotal: number | undefined;
  const report = (done: number, total?: number) => {
    if (!Number.isFinite(done) || done <= last) return;
    last = done;
    if (total !== undefined) lastTotal = total;
    const params =
      total === undefined
        ? { progressToken: token, progress: done }
        : { progressToken: token, progress: done, total };
    void send({ method: "notifications/progress", params }).catch(() => {});
  };
  return Object.assign(report, {
    finish: () => {
      const total = lastTotal ?? Math.max(1, last);
      report(total, total);
    },
  });
}
