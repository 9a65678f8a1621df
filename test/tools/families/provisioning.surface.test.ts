/**
 * artifact_manifest through the real MCP stack (SDK Client ↔ server, routed surface over two
 * KBs, authorization and audit in the one call pipeline): `kb` selects the KB, the source names
 * it, a map-restricted principal gets the bundled artifacts only, a principal without the KB is
 * refused, and the call is audited.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Principal } from "../../../src/auth/types.js";
import { silentLogger } from "../../../src/logger.js";
import { LOCAL_ADMIN } from "../../../src/mcp/context.js";
import { RoutedSurfaceCache } from "../../../src/mcp/routed-cache.js";
import { createMcpServer } from "../../../src/mcp/server.js";
import type { ToolSurface } from "../../../src/mcp/surface.js";
import { surfaceForMount } from "../../../src/mcp/surface-for-mount.js";
import {
  MemoryAudit,
  must,
  principal,
  type TempMounts,
  tempMounts,
  textOf,
} from "../../support/mcp-kit.js";

let kbs: TempMounts;
let routed: ToolSurface;
const audit = new MemoryAudit();

beforeAll(async () => {
  kbs = await tempMounts(["a", "b"]);
  const root = must(kbs.byName.a).settings.root;
  await mkdir(join(root, "skills", "ops"), { recursive: true });
  await writeFile(
    join(root, "skills", "ops", "SKILL.md"),
    "---\nname: ops\nversion: 3\n---\nOps.\n",
  );
  const surfaces = kbs.mounts.map((m) => surfaceForMount(m, { audit, logger: silentLogger }));
  routed = new RoutedSurfaceCache(surfaces).get(["a", "b"]);
});
afterAll(async () => kbs.cleanup());

async function connect(p: Principal): Promise<Client> {
  const server = createMcpServer(routed, {
    name: "cartographer",
    version: "test",
    profile: "full",
    principal: p,
    transport: "in-memory",
    metadataGate: () => true,
  });
  const [ct, st] = InMemoryTransport.createLinkedPair();
  await server.connect(st);
  const client = new Client({ name: "t", version: "1" });
  await client.connect(ct);
  return client;
}

// biome-ignore lint/suspicious/noExplicitAny: the manifest is plain JSON, checked field by field
async function manifest(client: Client, kb: string): Promise<any> {
  const r = await client.callTool({ name: "artifact_manifest", arguments: { kb } });
  if (r.isError) return { error: textOf(r) };
  return JSON.parse(textOf(r));
}

describe("artifact_manifest over the routed surface", () => {
  it("kb selects the KB; its artifacts carry source kb:<name>; the other KB has only bundled ones", async () => {
    const admin = await connect(LOCAL_ADMIN);
    const a = await manifest(admin, "a");
    expect(a.kb).toBe("a");
    expect(a.artifacts).toContainEqual(
      expect.objectContaining({ kind: "skill", name: "ops", source: "kb:a", version: "3" }),
    );
    const b = await manifest(admin, "b");
    expect(b.artifacts.every((x: { source: string }) => x.source === "bundle")).toBe(true);
    expect(b.revision).not.toBe(a.revision);
    expect(audit.records.some((r) => r.tool === "artifact_manifest" && r.kb === "a")).toBe(true);
  });

  it("a map-restricted principal gets bundled artifacts only; a principal without the KB is refused", async () => {
    const narrow = await connect(principal("narrow", [{ kb: "a", access: "r", maps: ["alpha"] }]));
    const m = await manifest(narrow, "a");
    expect(m.artifacts.length).toBeGreaterThan(0);
    expect(JSON.stringify(m)).not.toContain('"ops"');
    const other = await connect(principal("other", [{ kb: "b", access: "rw" }]));
    expect((await manifest(other, "a")).error).toBe("forbidden");
  });
});
