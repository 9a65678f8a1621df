/**
 * The MCP surface as an agent meets it: a fresh temp KB (real git + SQLite) mounted with
 * mountKb, wrapped by surfaceForMount, served by createMcpServer and reached through a real SDK
 * `Client` over the SDK's in-memory transport pair. Nothing below the surface is called directly.
 */
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { silentLogger } from "../../src/logger.js";
import type { KbSurface } from "../../src/mcp/kb-surface.js";
import type { ToolsProfile } from "../../src/mcp/surface.js";
import { surfaceForMount } from "../../src/mcp/surface-for-mount.js";
import { closeMount, mountKb } from "../../src/runtime/mount.js";
import { connectClient } from "../support/call-tool.js";
import { git, seedKb, testKbSettings } from "../support/kb.js";
import { tempDir } from "../support/temp-dir.js";

// The shared builders (test/support/kb.ts); re-exported for the suites that import them here.
export { git, TEST_AUTHOR } from "../support/kb.js";

export interface SurfaceKb {
  root: string;
  surface: KbSurface;
  client: Client;
  /** tools/call through the SDK client; the raw CallToolResult. */
  call: (name: string, args?: Record<string, unknown>) => Promise<CallToolResult>;
  cleanup: () => Promise<void>;
}

export interface SurfaceKbOptions {
  profile?: ToolsProfile;
  allowArtifactWrite?: boolean;
  /** Files (KB-relative path → content) written and committed before the KB is mounted. */
  files?: Record<string, string>;
}

export async function surfaceKb(opts: SurfaceKbOptions = {}): Promise<SurfaceKb> {
  const tmp = tempDir("carto-surface-");
  const root = join(tmp.dir, "kb");
  await seedKb(root, opts.files ?? {}, "test: seed files");
  const settings = testKbSettings(root, { allowArtifactWrite: opts.allowArtifactWrite });
  const mount = await mountKb(settings, { logger: silentLogger });
  const surface = surfaceForMount(mount, { logger: silentLogger });
  const { client, close } = await connectClient(surface, {
    profile: opts.profile ?? "agent",
    clientName: "surface-test",
  });
  return {
    root,
    surface,
    client,
    call: async (name, args = {}) =>
      (await client.callTool({ name, arguments: args })) as CallToolResult,
    cleanup: async () => {
      await close();
      await closeMount(mount);
      tmp.cleanup();
    },
  };
}

export function commitCount(root: string): number {
  return Number(git(root, ["rev-list", "--count", "HEAD"]));
}

/** The single text content of a result (fails loudly when the shape is anything else). */
export function textOf(result: CallToolResult): string {
  const content = result.content;
  if (content.length !== 1 || content[0]?.type !== "text") {
    throw new Error(`expected one text content, got ${JSON.stringify(content)}`);
  }
  return content[0].text;
}

/** The parsed JSON of a successful result; throws with the error text when it is an error. */
export function okJson(result: CallToolResult): Record<string, unknown> {
  const text = textOf(result);
  if (result.isError) throw new Error(`expected success, got error: ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
}
