/**
 * The MCP surface as an agent meets it: a fresh temp KB (real git + SQLite) mounted with
 * mountKb, wrapped by surfaceForMount, served by createMcpServer and reached through a real SDK
 * `Client` over the SDK's in-memory transport pair. Nothing below the surface is called directly.
 */
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { initKb } from "../../src/kb/init.js";
import type { KbSettings } from "../../src/kb/types.js";
import { silentLogger } from "../../src/logger.js";
import { LOCAL_ADMIN } from "../../src/mcp/context.js";
import type { KbSurface } from "../../src/mcp/kb-surface.js";
import { closeMount, mountKb } from "../../src/mcp/mount.js";
import { createMcpServer } from "../../src/mcp/server.js";
import type { ToolsProfile } from "../../src/mcp/surface.js";
import { surfaceForMount } from "../../src/mcp/surface-for-mount.js";
import { VERSION } from "../../src/version.js";

export const TEST_AUTHOR = { name: "Cartographer Test", email: "test@cartographer.invalid" };

const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: TEST_AUTHOR.name,
  GIT_AUTHOR_EMAIL: TEST_AUTHOR.email,
  GIT_COMMITTER_NAME: TEST_AUTHOR.name,
  GIT_COMMITTER_EMAIL: TEST_AUTHOR.email,
};

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
  const tmp = await mkdtemp(join(tmpdir(), "carto-surface-"));
  const root = join(tmp, "kb");
  await initKb(root, { gitAuthor: TEST_AUTHOR });
  const files = Object.entries(opts.files ?? {});
  for (const [path, content] of files) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), content);
  }
  if (files.length > 0) {
    git(root, ["add", "-A"]);
    git(root, ["commit", "-q", "-m", "test: seed files"]);
  }
  const settings: KbSettings = {
    name: "test",
    root,
    allowArtifactWrite: opts.allowArtifactWrite ?? false,
    gitAuthor: TEST_AUTHOR,
    autocommit: true,
  };
  const mount = await mountKb(settings, { logger: silentLogger });
  const surface = surfaceForMount(mount, { logger: silentLogger });
  const server = createMcpServer(surface, {
    name: "cartographer",
    version: VERSION,
    profile: opts.profile ?? "agent",
    principal: LOCAL_ADMIN,
    transport: "in-memory",
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "surface-test", version: "1.0.0" });
  await client.connect(clientSide);
  return {
    root,
    surface,
    client,
    call: async (name, args = {}) =>
      (await client.callTool({ name, arguments: args })) as CallToolResult,
    cleanup: async () => {
      await client.close();
      await server.close();
      await closeMount(mount);
      await rm(tmp, { recursive: true, force: true });
    },
  };
}

export function git(root: string, args: string[]): string {
  return execFileSync("git", args, { cwd: root, env: GIT_ENV }).toString().trim();
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
