/**
 * A temp KB (real git + SQLite) with Service concepts, mounted with mountKb, served by
 * createMcpServer and reached through real SDK Clients over the in-memory transport, one per
 * principal. The audit sink and the logger keep everything in memory, so tests can search them
 * for a planted secret.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Principal } from "../../src/auth/types.js";
import type { KbSettings, SopsSettings } from "../../src/kb/core/types.js";
import { initKb } from "../../src/kb/store/init.js";
import { memoryLogger } from "../../src/logger.js";
import { LOCAL_ADMIN } from "../../src/mcp/context.js";
import { surfaceForMount } from "../../src/mcp/surface-for-mount.js";
import { closeMount, mountKb } from "../../src/runtime/mount.js";
import { connectClient } from "./call-tool.js";
import { git, TEST_AUTHOR, testKbSettings } from "./kb.js";
import { MemoryAudit } from "./mcp-kit.js";
import { tempDir } from "./temp-dir.js";

// The shared git runner (test/support/kb.ts); re-exported for the suites that import it here.
export { git } from "./kb.js";

export const SERVICE_FILES: Record<string, string> = {
  "services/keycloak.md":
    "---\ntype: Service\ntitle: Keycloak\nstatus: active\nkind: idp\nbase_url: https://keycloak.example.internal\nsecret_refs:\n  - ADMIN_PASSWORD=secrets/keycloak.sops.yaml#/admin/password\n---\n\nThe identity provider.\n",
  "services/db.md": "---\ntype: Service\ntitle: Database\n---\n\nPostgres.\n",
  "data/notes/plain.md": "---\ntype: note\ntitle: Plain\n---\n\nNot a service.\n",
};

export interface ServicesKb {
  root: string;
  audit: MemoryAudit;
  logger: ReturnType<typeof memoryLogger>;
  /** tools/call through an SDK client for `who` (default: local admin). */
  call: (name: string, args?: Record<string, unknown>, who?: Principal) => Promise<CallToolResult>;
  cleanup: () => Promise<void>;
}

export interface ServicesKbOptions {
  files?: Record<string, string>;
  /** The KB's SOPS settings, built once the KB root is known; undefined = not configured. */
  sops?: (root: string) => SopsSettings | undefined;
  /** Runs on the fresh KB root before it is committed and mounted (e.g. encrypt files). */
  prepare?: (root: string) => Promise<void>;
}

export async function servicesKb(opts: ServicesKbOptions = {}): Promise<ServicesKb> {
  const tmp = tempDir("carto-services-");
  const root = join(tmp.dir, "kb");
  await initKb(root, { gitAuthor: TEST_AUTHOR });
  for (const [path, text] of Object.entries(opts.files ?? SERVICE_FILES)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), text);
  }
  await opts.prepare?.(root);
  git(root, ["add", "-A"]);
  git(root, ["commit", "-q", "-m", "test: seed services"]);
  const sops = opts.sops?.(root);
  const settings: KbSettings = { ...testKbSettings(root), ...(sops ? { sops } : {}) };
  const logger = memoryLogger();
  const audit = new MemoryAudit();
  const mount = await mountKb(settings, { logger });
  const surface = surfaceForMount(mount, { logger, audit });
  const clients = new Map<Principal, { client: Client; close: () => Promise<void> }>();
  const clientFor = async (who: Principal): Promise<Client> => {
    const known = clients.get(who);
    if (known) return known.client;
    const connected = await connectClient(surface, {
      principal: who,
      profile: "full",
      clientName: "services-test",
    });
    clients.set(who, connected);
    const client = connected.client;
    return client;
  };
  return {
    root,
    audit,
    logger,
    call: async (name, args = {}, who = LOCAL_ADMIN) =>
      (await (await clientFor(who)).callTool({ name, arguments: args })) as CallToolResult,
    cleanup: async () => {
      for (const c of clients.values()) await c.close();
      await closeMount(mount);
      tmp.cleanup();
    },
  };
}

/** The single text content of a result. */
export function textOf(result: CallToolResult): string {
  const content = result.content;
  if (content.length !== 1 || content[0]?.type !== "text") {
    throw new Error(`expected one text content, got ${JSON.stringify(content)}`);
  }
  return content[0].text;
}

/** The parsed JSON of a successful result; throws with the error text otherwise. */
export function okJson(result: CallToolResult): Record<string, unknown> {
  const text = textOf(result);
  if (result.isError) throw new Error(`expected success, got error: ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
}
