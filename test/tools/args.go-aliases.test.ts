/**
 * Go v0.5 argument names (docs/decisions.md "Go v0.5 argument names are accepted as aliases"):
 * accepted as aliases through a real SDK Client against a temp KB, never listed in tools/list,
 * renamed before authorization and audit, refused when they contradict our name; and `content_hash`
 * next to `hash` in the results Go gave it in.
 */
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Principal } from "../../src/auth/types.js";
import { silentLogger } from "../../src/logger.js";
import { LOCAL_ADMIN } from "../../src/mcp/context.js";
import { RoutedSurfaceCache } from "../../src/mcp/routed-cache.js";
import { createMcpServer } from "../../src/mcp/server.js";
import type { ToolSurface } from "../../src/mcp/surface.js";
import { surfaceForMount } from "../../src/mcp/surface-for-mount.js";
import { closeMount, type MountedKb, mountKb } from "../../src/runtime/mount.js";
import { allTools } from "../../src/tools/registry.js";
import { seedKb, testKbSettings } from "../support/kb.js";
import { MemoryAudit, principal, textOf } from "../support/mcp-kit.js";
import { useTempDirs } from "../support/temp-dir.js";

const newDir = useTempDirs("carto-go-alias-", "file");
let mount: MountedKb;
const audit = new MemoryAudit();

beforeAll(async () => {
  const root = join(newDir(), "kb");
  await seedKb(
    root,
    { "templates/memo.md": "---\ntype: memo\ntitle: {{title}}\n---\n\n# {{title}}\n" },
    "template",
  );
  mount = await mountKb(testKbSettings(root, { name: "main" }), { logger: silentLogger });
});
afterAll(async () => {
  await closeMount(mount).catch(() => {});
});

async function client(p: Principal = LOCAL_ADMIN, routed = false): Promise<Client> {
  const kbSurface = surfaceForMount(mount, { audit, logger: silentLogger });
  const surface: ToolSurface = routed
    ? new RoutedSurfaceCache([kbSurface]).get(["main"])
    : kbSurface;
  const server = createMcpServer(surface, {
    name: "cartographer",
    version: "test",
    profile: "full",
    principal: p,
    transport: "in-memory",
    metadataGate: () => true,
  });
  const [ct, st] = InMemoryTransport.createLinkedPair();
  await server.connect(st);
  const c = new Client({ name: "go-skill", version: "1" });
  await c.connect(ct);
  return c;
}

async function call(c: Client, name: string, args: Record<string, unknown>) {
  const r = await c.callTool({ name, arguments: args });
  const text = textOf(r);
  return { text, isError: r.isError === true, json: r.isError ? null : JSON.parse(text) };
}

async function note(c: Client, id: string) {
  const r = await call(c, "concept_write", {
    id,
    frontmatter: { type: "note", title: id },
    body: `About ${id}.\n`,
  });
  expect(r.isError, r.text).toBe(false);
  return r.json as Record<string, unknown>;
}

describe("Go argument aliases", () => {
  it("tools/list never shows an alias (the schemas stay ours)", async () => {
    const { tools } = await (await client()).listTools();
    const listed = JSON.stringify(tools);
    for (const spec of allTools()) {
      for (const alias of Object.keys(spec.aliases ?? {})) {
        const tool = tools.find((t) => t.name === spec.name);
        expect(Object.keys(tool?.inputSchema.properties ?? {})).not.toContain(alias);
      }
    }
    expect(listed).not.toContain('"vars"');
    expect(listed).not.toContain('"with_hash"');
    expect(listed).not.toContain('"source_id"');
  });

  it("concept_move takes source_id/target_id; the audit records them as from/to", async () => {
    const c = await client();
    await call(c, "map_create", { name: "alpha", kind: "map" });
    await note(c, "alpha/old");
    audit.records.length = 0;
    const r = await call(c, "concept_move", {
      source_id: "alpha/old",
      target_id: "alpha/new",
      rewrite_links: false,
    });
    expect(r.isError, r.text).toBe(false);
    expect((await call(c, "concept_read", { id: "alpha/new" })).isError).toBe(false);
    expect((await call(c, "concept_read", { id: "alpha/old" })).text).toMatch(/^not_found/);
    const attempt = audit.records.find((x) => x.tool === "concept_move" && x.phase === "attempt");
    expect(attempt?.resources).toEqual({
      from: "alpha/old",
      to: "alpha/new",
      rewrite_links: false,
    });
  });

  it("concept_move moves[] items take source_id/target_id; a clash inside an item names it", async () => {
    const c = await client();
    await note(c, "alpha/m1");
    await note(c, "alpha/m2");
    const clash = await call(c, "concept_move", {
      moves: [{ source_id: "alpha/m1", from: "alpha/m2", to: "alpha/x" }],
    });
    expect(clash.text).toMatch(
      /^invalid_argument: 'moves\[0\]\.source_id' \(the Go name of 'moves\[0\]\.from'\)/,
    );
    const r = await call(c, "concept_move", {
      moves: [
        { source_id: "alpha/m1", target_id: "alpha/m1-moved" },
        { from: "alpha/m2", to: "alpha/m2-moved" },
      ],
      rewrite_links: false,
    });
    expect(r.isError, r.text).toBe(false);
    expect((await call(c, "concept_read", { id: "alpha/m1-moved" })).isError).toBe(false);
    expect((await call(c, "concept_read", { id: "alpha/m2-moved" })).isError).toBe(false);
  });

  it("authorization judges the aliased targets: a role on alpha may not move into beta", async () => {
    const admin = await client();
    await call(admin, "map_create", { name: "beta", kind: "map" });
    await note(admin, "alpha/movable");
    const role = await client(
      principal("alpha-writer", [{ kb: "main", access: "rw", maps: ["alpha"] }]),
    );
    const denied = await call(role, "concept_move", {
      source_id: "alpha/movable",
      target_id: "beta/movable",
      rewrite_links: false,
    });
    // The destination is outside the role and absent: a hidden resource, denied as `not found`.
    expect(denied).toMatchObject({ isError: true, text: "not found" });
    expect((await call(admin, "concept_read", { id: "alpha/movable" })).isError).toBe(false);
    const allowed = await call(role, "concept_move", {
      source_id: "alpha/movable",
      target_id: "alpha/moved",
      rewrite_links: false,
    });
    expect(allowed.isError, allowed.text).toBe(false);
  });

  it("both names with different values → invalid_argument; with the same value → accepted", async () => {
    const c = await client();
    await note(c, "alpha/twice");
    const clash = await call(c, "concept_move", {
      source_id: "alpha/twice",
      from: "alpha/other",
      to: "alpha/twice-moved",
    });
    expect(clash.isError).toBe(true);
    expect(clash.text).toMatch(
      /^invalid_argument: 'source_id' \(the Go name of 'from'\) and 'from'/,
    );
    const same = await call(c, "concept_move", {
      source_id: "alpha/twice",
      from: "alpha/twice",
      to: "alpha/twice-moved",
      rewrite_links: false,
    });
    expect(same.isError, same.text).toBe(false);
  });

  it("concept_new takes vars; supersede source_id/target_id; log_tail n; map_delete map", async () => {
    const c = await client();
    const created = await call(c, "concept_new", {
      template: "memo",
      id: "alpha/memo",
      vars: { title: "Hello" },
    });
    expect(created.isError, created.text).toBe(false);
    expect((await call(c, "concept_read", { id: "alpha/memo" })).json.frontmatter.title).toBe(
      "Hello",
    );
    await note(c, "alpha/successor");
    const sup = await call(c, "supersede", {
      source_id: "alpha/memo",
      target_id: "alpha/successor",
    });
    expect(sup.isError, sup.text).toBe(false);
    const read = await call(c, "concept_read", { id: "alpha/memo" });
    expect(read.json.frontmatter.superseded_by).toBe("alpha/successor");
    await call(c, "log_append", { entry: "one" });
    await call(c, "log_append", { entry: "two" });
    const tail = await call(c, "log_tail", { n: 1 });
    expect(tail.isError, tail.text).toBe(false);
    expect(JSON.stringify(tail.json)).toContain("two");
    expect(JSON.stringify(tail.json)).not.toContain("one");
    await call(c, "map_create", { name: "empty", kind: "map" });
    const del = await call(c, "map_delete", { map: "empty" });
    expect(del.isError, del.text).toBe(false);
  });

  it("the routed surface passes Go names through to the same rename", async () => {
    const c = await client(LOCAL_ADMIN, true);
    await note(c, "alpha/routed");
    const r = await call(c, "concept_move", {
      kb: "main",
      source_id: "alpha/routed",
      target_id: "alpha/routed-moved",
      rewrite_links: false,
    });
    expect(r.isError, r.text).toBe(false);
    expect((await call(c, "concept_read", { id: "alpha/routed-moved" })).isError).toBe(false);
  });

  it("an unknown Go-only argument is still refused, naming it", async () => {
    const r = await call(await client(), "snapshot", { message: "x" });
    expect(r.text).toMatch(/^invalid_argument: 'message' is not a known argument/);
  });
});

describe("content_hash in results", () => {
  it("concept_write, concept_read, concept_patch, concept_batch items and index_get carry content_hash = hash", async () => {
    const c = await client();
    const written = await note(c, "alpha/hashed");
    expect(written.content_hash).toBe(written.hash);
    const read = (await call(c, "concept_read", { id: "alpha/hashed" })).json;
    expect(read.content_hash).toBe(written.hash);
    const patched = (
      await call(c, "concept_patch", {
        id: "alpha/hashed",
        old_string: "About",
        new_string: "All about",
        if_match: read.content_hash,
      })
    ).json;
    expect(patched.content_hash).toBe(patched.hash);
    expect(patched.hash).not.toBe(written.hash);
    const batch = (
      await call(c, "concept_batch", {
        operations: [
          { op: "write", id: "alpha/b1", frontmatter: { type: "note" }, body: "one\n" },
          { op: "write", id: "alpha/b2", frontmatter: { type: "note" }, body: "two\n" },
        ],
      })
    ).json;
    expect(batch.results).toHaveLength(2);
    for (const item of batch.results) expect(item.content_hash).toBe(item.hash);
    // with_hash: accepted and ignored (ours always returns the hash), never listed.
    const index = (await call(c, "index_get", { with_hash: true })).json;
    expect(index.content_hash).toBe(index.hash);
  });
});
