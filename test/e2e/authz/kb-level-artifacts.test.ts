/**
 * One fail-closed rule for KB-level artifacts (instructions.md): only a whole-KB reader gets
 * them, whichever door it knocks on — artifact_read, atlas_overview.instructions,
 * resources/list and resources/read `cartographer://<kb>/~instructions`. A map- or
 * type-restricted role gets none of them. Real KB, SDK Client over an in-memory transport.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Principal } from "../../../src/auth/types.js";
import { silentLogger } from "../../../src/logger.js";
import { LOCAL_ADMIN } from "../../../src/mcp/context.js";
import { createMcpServer } from "../../../src/mcp/server.js";
import type { ToolSurface } from "../../../src/mcp/surface.js";
import { surfaceForMount } from "../../../src/mcp/surface-for-mount.js";
import { run } from "../../support/authz.js";
import { git } from "../../support/kb.js";
import { must, principal, type TempMounts, tempMounts, textOf } from "../../support/mcp-kit.js";

const SECRET_GUIDANCE = "Internal runbook guidance: only for whole-KB readers.";
const BY_MAP = principal("by-map", [{ kb: "main", access: "r", maps: ["alpha"] }]);
const BY_TYPE = principal("by-type", [{ kb: "main", access: "r", types: ["note"] }]);
const WHOLE = principal("whole", [{ kb: "main", access: "r" }]);
const URI = "cartographer://main/~instructions";

let kbs: TempMounts;
let surface: ToolSurface;

beforeAll(async () => {
  kbs = await tempMounts(["main"]);
  const main = must(kbs.byName.main);
  await run(main, "map_create", { name: "alpha", kind: "map" });
  await run(main, "concept_write", {
    id: "alpha/n",
    frontmatter: { type: "note", title: "N" },
    body: "x\n",
  });
  writeFileSync(join(main.settings.root, "instructions.md"), `# Guidance\n\n${SECRET_GUIDANCE}\n`);
  git(main.settings.root, ["add", "-A"]);
  git(main.settings.root, ["commit", "-qm", "instructions"]);
  surface = surfaceForMount(main, { audit: null, logger: silentLogger });
}, 60_000);
afterAll(async () => kbs?.cleanup());

async function connect(p: Principal): Promise<Client> {
  const server = createMcpServer(surface, {
    name: "cartographer",
    version: "test",
    profile: "agent",
    principal: p,
    transport: "in-memory",
  });
  const [ct, st] = InMemoryTransport.createLinkedPair();
  await server.connect(st);
  const client = new Client({ name: "t", version: "1" });
  await client.connect(ct);
  return client;
}

/** What each door answers the principal about instructions.md. */
async function doors(p: Principal) {
  const client = await connect(p);
  try {
    const artifact = textOf(
      await client.callTool({ name: "artifact_read", arguments: { path: "instructions.md" } }),
    );
    const overview = JSON.parse(
      textOf(await client.callTool({ name: "atlas_overview", arguments: {} })),
    ) as { instructions: string | null };
    const listed = (await client.listResources()).resources.map((r) => r.uri);
    let read: string;
    try {
      const r = await client.readResource({ uri: URI });
      read = (r.contents[0] as { text: string }).text;
    } catch (err) {
      read = `error ${(err as { code?: number }).code}: ${(err as Error).message}`;
    }
    return { artifact, overview: overview.instructions, listed: listed.includes(URI), read };
  } finally {
    await client.close();
  }
}

describe("KB-level artifacts: one rule, fail closed", () => {
  it("a whole-KB reader gets instructions.md from every door", async () => {
    for (const p of [LOCAL_ADMIN, WHOLE]) {
      const seen = await doors(p);
      expect(seen.artifact, p.id).toContain(SECRET_GUIDANCE);
      expect(seen.overview, p.id).toContain(SECRET_GUIDANCE);
      expect(seen.listed, p.id).toBe(true);
      expect(seen.read, p.id).toContain(SECRET_GUIDANCE);
    }
  });

  it("a map- or type-restricted role gets it from none", async () => {
    for (const p of [BY_MAP, BY_TYPE]) {
      const seen = await doors(p);
      expect(seen.artifact, p.id).toBe("forbidden");
      expect(seen.overview, p.id).toBeNull();
      expect(seen.listed, p.id).toBe(false);
      expect(seen.read, p.id).toMatch(/^error -32003: .*forbidden/);
      expect(JSON.stringify(seen), p.id).not.toContain("runbook");
    }
  });
});
