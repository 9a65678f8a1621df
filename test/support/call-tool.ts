/**
 * Tool calls as the server runs them: through a KbSurface's callTool, so every call takes the
 * real pipeline (src/mcp/call-pipeline.ts: validate, authorize, audit, KB lock, one commit).
 * `callSurface` answers the rendered CallToolResult; `callTool` runs one spec on a runtime and
 * answers the parsed value, throwing the KbError an error result names (what handler tests
 * assert on); `connectClient` puts a real SDK Client in front of a surface for tests of the
 * protocol layer too.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { AuditSink } from "../../src/audit/types.js";
import type { Principal } from "../../src/auth/types.js";
import { KbError, type KbErrorCode } from "../../src/common/errors.js";
import type { Visibility } from "../../src/kb/core/types.js";
import { silentLogger } from "../../src/logger.js";
import type { CallContext } from "../../src/mcp/context.js";
import { LOCAL_ADMIN } from "../../src/mcp/context.js";
import { KbSurface } from "../../src/mcp/kb-surface.js";
import { createMcpServer } from "../../src/mcp/server.js";
import type { ToolSurface, ToolsProfile } from "../../src/mcp/surface.js";
import type { KbRuntime } from "../../src/runtime/kb-runtime.js";
import { FORBIDDEN_TEXT, NOT_FOUND_TEXT } from "../../src/tools/result.js";
import type { ToolSpec } from "../../src/tools/spec.js";
import { VERSION } from "../../src/version.js";

/** Anything with the surface's callTool: a KbSurface, a routed surface. */
type CallableSurface = Pick<ToolSurface, "callTool">;

export interface CallOptions {
  /** Who calls (default: the local admin, who sees everything). */
  principal?: Principal;
}

/** One tools/call through `surface` (the pipeline's rendered result). */
export function callSurface(
  surface: CallableSurface,
  name: string,
  args: Record<string, unknown> = {},
  opts: CallOptions = {},
): Promise<CallToolResult> {
  const ctx: CallContext = {
    principal: opts.principal ?? LOCAL_ADMIN,
    transport: "in-memory",
    requestId: "",
  };
  return surface.callTool(name, args, ctx);
}

export interface SpecCallOptions {
  /** What the caller may see: a principal granted exactly these selectors on the KB. */
  visibility?: Visibility;
  audit?: AuditSink;
}

/**
 * Runs `spec` on `runtime` through a KbSurface registering it. Answers the handler's value as
 * the caller receives it (the rendered JSON, parsed); an error result is thrown as the KbError
 * its text names (`<code>: <message>`, `forbidden`, `not found`).
 */
export async function callTool(
  runtime: KbRuntime,
  spec: ToolSpec,
  args: unknown,
  opts: SpecCallOptions = {},
): Promise<unknown> {
  const surface = new KbSurface({
    runtime,
    specs: [spec],
    audit: opts.audit ?? null,
    logger: silentLogger,
  });
  const principal = principalSeeing(runtime.settings.name, opts.visibility);
  const ctx: CallContext = { principal, transport: "in-memory", requestId: "" };
  const result = await surface.callTool(spec.name, args, ctx);
  const text = result.content[0]?.type === "text" ? result.content[0].text : "";
  if (result.isError) throw errorOf(text);
  return JSON.parse(text) as unknown;
}

/** The local admin for `{ all: true }`; otherwise a principal holding the visibility's rules. */
function principalSeeing(kb: string, visibility: Visibility | undefined): Principal {
  if (!visibility || visibility.all) return LOCAL_ADMIN;
  return {
    id: "test",
    policy: {
      admin: false,
      rules: visibility.rules.map((rule) => ({ kb, access: "rw" as const, ...rule })),
    },
  };
}

function errorOf(text: string): KbError {
  if (text === FORBIDDEN_TEXT) return new KbError("forbidden", text);
  if (text === NOT_FOUND_TEXT) return new KbError("not_found", text);
  const colon = text.indexOf(": ");
  if (colon < 0) return new KbError("internal", text);
  return new KbError(text.slice(0, colon) as KbErrorCode, text.slice(colon + 2));
}

export interface ConnectedClient {
  client: Client;
  close: () => Promise<void>;
}

/** A real SDK Client talking to `surface` through createMcpServer over the in-memory transport. */
export async function connectClient(
  surface: ToolSurface,
  opts: { principal?: Principal; profile?: ToolsProfile; clientName?: string } = {},
): Promise<ConnectedClient> {
  const server = createMcpServer(surface, {
    name: "cartographer",
    version: VERSION,
    profile: opts.profile ?? "agent",
    principal: opts.principal ?? LOCAL_ADMIN,
    transport: "in-memory",
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: opts.clientName ?? "test-client", version: "1.0.0" });
  await client.connect(clientSide);
  return {
    client,
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}
