/**
 * MCP capabilities through a real SDK Client (in-memory transport) on real KBs: resources
 * (list with pagination, read, template), prompts (KB and bundled skills, typed arguments),
 * completions, authorization (a narrow role sees only its concepts; hidden ≡ missing, byte for
 * byte) and the audit of resources/read, per-KB and routed.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Principal } from "../../src/auth/types.js";
import { silentLogger } from "../../src/logger.js";
import { LOCAL_ADMIN } from "../../src/mcp/context.js";
import type { KbSurface } from "../../src/mcp/kb-surface.js";
import { RESOURCE_PAGE } from "../../src/mcp/protocol-specs.js";
import { RoutedSurface } from "../../src/mcp/routed-surface.js";
import { createMcpServer } from "../../src/mcp/server.js";
import type { ToolSurface } from "../../src/mcp/surface.js";
import { surfaceForMount } from "../../src/mcp/surface-for-mount.js";
import type { MountedKb } from "../../src/runtime/mount.js";
import { run } from "../support/authz.js";
import { git } from "../support/kb.js";
import { MemoryAudit, must, principal, type TempMounts, tempMounts } from "../support/mcp-kit.js";

let kbs: TempMounts;
let main: MountedKb;
let surfaces: KbSurface[];
const audit = new MemoryAudit();
/** Reads notes in map alpha only. */
const NARROW = principal("narrow", [{ kb: "main", access: "r", maps: ["alpha"], types: ["note"] }]);
const BULK = RESOURCE_PAGE + 5;

beforeAll(async () => {
  kbs = await tempMounts(["main", "other"]);
  main = must(kbs.byName.main);
  await run(main, "map_create", { name: "alpha", kind: "map" });
  await run(main, "map_create", { name: "beta", kind: "map" });
  await run(main, "concept_write", {
    id: "alpha/in-note",
    frontmatter: { type: "note", title: "In note" },
    body: "Visible body\n",
  });
  await run(main, "concept_write", {
    id: "alpha/in-task",
    frontmatter: { type: "task", title: "Hidden task" },
    body: "Hidden body\n",
  });
  // Enough concepts for two pages, written as files with one commit (fast), then indexed.
  const root = main.settings.root;
  mkdirSync(join(root, "data/beta/bulk"), { recursive: true });
  const ids: string[] = [];
  for (let i = 0; i < BULK; i++) {
    const id = `beta/bulk/c${String(i).padStart(3, "0")}`;
    ids.push(id);
    writeFileSync(
      join(root, `data/${id}.md`),
      `---\ntype: doc\ntitle: Bulk ${i}\n---\nBody ${i}\n`,
    );
  }
  // A KB skill with typed arguments.
  mkdirSync(join(root, "skills/triage"), { recursive: true });
  writeFileSync(
    join(root, "skills/triage/SKILL.md"),
    "---\nname: triage\ndescription: Triage one concept\narguments: [id, note?]\n---\n# Triage\n\nLook at {{id}} first.\n",
  );
  git(root, ["add", "-A"]);
  git(root, ["commit", "-qm", "bulk"]);
  await main.runtime.syncIndex(ids);
  surfaces = kbs.mounts.map((m) => surfaceForMount(m, { audit, logger: silentLogger }));
}, 60_000);
afterAll(async () => kbs?.cleanup());

async function connect(
  surface: ToolSurface,
  p: Principal = LOCAL_ADMIN,
  gate?: () => boolean,
): Promise<Client> {
  const server = createMcpServer(surface, {
    name: "cartographer",
    version: "test",
    profile: "agent",
    principal: p,
    transport: "in-memory",
    ...(gate ? { metadataGate: gate } : {}),
  });
  const [ct, st] = InMemoryTransport.createLinkedPair();
  await server.connect(st);
  const client = new Client({ name: "t", version: "1" });
  await client.connect(ct);
  return client;
}

async function allResources(client: Client): Promise<string[]> {
  const uris: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await client.listResources(cursor === undefined ? {} : { cursor });
    uris.push(...page.resources.map((r) => r.uri));
    cursor = page.nextCursor;
    pages++;
  } while (cursor !== undefined && pages < 20);
  return uris;
}

/** The JSON-RPC error of a rejected request, as the client received it. */
async function errorOf(p: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await p;
  } catch (err) {
    const e = err as { code: number; message: string; data?: unknown };
    return { code: e.code, message: e.message };
  }
  throw new Error("expected the request to fail");
}

describe("resources on a per-KB surface", () => {
  it("declares resources, prompts, completions and logging", async () => {
    const client = await connect(must(surfaces[0]));
    const caps = client.getServerCapabilities();
    expect(caps).toMatchObject({
      tools: {},
      resources: {},
      prompts: {},
      completions: {},
      logging: {},
    });
    // Not a live session: nothing could be delivered later.
    expect(caps?.resources?.subscribe).toBeUndefined();
  });

  it("lists every concept over pages (cursor), plus the index, each text/markdown", async () => {
    const client = await connect(must(surfaces[0]));
    const first = await client.listResources();
    expect(first.nextCursor).toBeTypeOf("string");
    const uris = await allResources(client);
    expect(uris).toContain("cartographer://main/~index");
    expect(uris).toContain("cartographer://main/~index/alpha");
    const mapIndex = await client.readResource({ uri: "cartographer://main/~index/alpha" });
    expect(mapIndex.contents[0]?.uri).toBe("cartographer://main/~index/alpha");
    // A folder that is not a map (an expanded concept's index is the concept) is not found.
    expect(
      (await errorOf(client.readResource({ uri: "cartographer://main/~index/beta/bulk" }))).code,
    ).toBe(-32002);
    expect(
      (await errorOf(client.readResource({ uri: "cartographer://main/~index/nomap" }))).code,
    ).toBe(-32002);
    expect(uris).toContain("cartographer://main/alpha/in-note");
    expect(uris).toContain("cartographer://main/beta/bulk/c204");
    expect(uris.filter((u) => u.includes("/beta/bulk/"))).toHaveLength(BULK);
    expect(new Set(uris).size).toBe(uris.length);
    expect(first.resources.every((r) => r.mimeType === "text/markdown" && r.name)).toBe(true);
  });

  it("reads a concept as its Markdown file, and the template names concepts by id", async () => {
    const client = await connect(must(surfaces[0]));
    const r = await client.readResource({ uri: "cartographer://main/alpha/in-note" });
    expect(r.contents).toHaveLength(1);
    const c = r.contents[0] as { uri: string; mimeType: string; text: string };
    expect(c.mimeType).toBe("text/markdown");
    expect(c.text).toMatch(/^---\n/);
    expect(c.text).toContain("Visible body");
    const t = await client.listResourceTemplates();
    expect(t.resourceTemplates.map((x) => x.uriTemplate)).toEqual(["cartographer://main/{+id}"]);
  });

  it("a narrow role lists only what it may read, before the page limit", async () => {
    const client = await connect(must(surfaces[0]), NARROW);
    const uris = await allResources(client);
    expect(uris).toEqual(["cartographer://main/alpha/in-note"]);
  });

  it("hidden ≡ missing: a hidden concept and the same URI once deleted answer the same bytes", async () => {
    const narrow = await connect(must(surfaces[0]), NARROW);
    const uri = "cartographer://main/alpha/gone-task";
    await run(main, "concept_write", {
      id: "alpha/gone-task",
      frontmatter: { type: "task" },
      body: "x\n",
    });
    const hidden = await errorOf(narrow.readResource({ uri }));
    await run(main, "concept_delete", { id: "alpha/gone-task" });
    const missing = await errorOf(narrow.readResource({ uri }));
    expect(JSON.stringify(hidden)).toBe(JSON.stringify(missing));
    expect(hidden.code).toBe(-32002);
    // The whole-KB index is refused like index_get, not hidden.
    expect((await errorOf(narrow.readResource({ uri: "cartographer://main/~index" }))).code).toBe(
      -32003,
    );
    // And a URI of no KB, or malformed, is the same kind of answer.
    const foreign = await errorOf(narrow.readResource({ uri: "test://static-text" }));
    expect(foreign.code).toBe(-32002);
  });

  it("resources/read is audited like concept_read: attempt and completion", async () => {
    const client = await connect(must(surfaces[0]), NARROW);
    const before = audit.records.length;
    await client.readResource({ uri: "cartographer://main/alpha/in-note" });
    const mine = audit.records.slice(before).filter((r) => r.tool === "resources/read");
    expect(mine.map((r) => r.phase)).toEqual(["attempt", "completion"]);
    expect(mine[0]?.resources).toEqual({
      id: "alpha/in-note",
      uri: "cartographer://main/alpha/in-note",
    });
    expect(mine[1]?.outcome).toBe("success");
    expect(mine[0]?.principal_id).toBe("narrow");
  });
});

describe("the metadata gate (D187) covers the new listings", () => {
  it("a principal who can read no KB of the endpoint gets forbidden on each listing", async () => {
    let open = true;
    const client = await connect(must(surfaces[0]), NARROW, () => open);
    open = false; // initialize went through; the principal lost access since
    const ref = { type: "ref/resource" as const, uri: "cartographer://main/{+id}" };
    for (const p of [
      client.listResources(),
      client.listResourceTemplates(),
      client.listPrompts(),
      client.complete({ ref, argument: { name: "id", value: "a" } }),
    ])
      expect(await errorOf(p)).toEqual({ code: -32003, message: "MCP error -32003: forbidden" });
  });
});

describe("prompts", () => {
  it("lists the KB's skills with typed arguments and the bundled skills", async () => {
    const client = await connect(must(surfaces[0]));
    const { prompts } = await client.listPrompts();
    const triage = prompts.find((p) => p.name === "triage");
    expect(triage?.arguments).toEqual([
      { name: "id", description: "A concept id", required: true },
      { name: "note", description: "note", required: false },
    ]);
    const bundled = prompts.find((p) => p.name === "cartographer-kb-loop");
    expect(bundled?.description).toBeTruthy();
    expect(bundled?.arguments?.map((a) => a.name)).toEqual(["request"]);
  });

  it("gets a prompt with its arguments filled in; a missing required one is refused", async () => {
    const client = await connect(must(surfaces[0]));
    const r = await client.getPrompt({
      name: "triage",
      arguments: { id: "alpha/in-note", note: "urgent" },
    });
    const text = r.messages[0]?.content.type === "text" ? r.messages[0].content.text : "";
    expect(r.messages[0]?.role).toBe("user");
    expect(text).toContain("Look at alpha/in-note first.");
    expect(text).toContain("note: urgent");
    expect(text).not.toContain("---");
    const e = await errorOf(client.getPrompt({ name: "triage", arguments: {} }));
    expect(e.code).toBe(-32602);
    const b = await client.getPrompt({
      name: "cartographer-kb-loop",
      arguments: { request: "tidy alpha" },
    });
    const bt = b.messages[0]?.content.type === "text" ? b.messages[0].content.text : "";
    expect(bt).toContain("Request: tidy alpha");
  });

  it("a role without whole-KB read sees only the bundled skills; a KB skill is as missing", async () => {
    const client = await connect(must(surfaces[0]), NARROW);
    const names = (await client.listPrompts()).prompts.map((p) => p.name);
    expect(names).not.toContain("triage");
    expect(names).toContain("cartographer-kb-loop");
    const hidden = await errorOf(client.getPrompt({ name: "triage", arguments: { id: "x" } }));
    const missing = await errorOf(client.getPrompt({ name: "nope", arguments: { id: "x" } }));
    expect(hidden.code).toBe(missing.code);
    expect(hidden.message.replace("triage", "nope")).toBe(missing.message);
  });
});

describe("completions", () => {
  it("completes concept ids of the template, filtered by authorization", async () => {
    const admin = await connect(must(surfaces[0]));
    const ref = { type: "ref/resource" as const, uri: "cartographer://main/{+id}" };
    const all = await admin.complete({ ref, argument: { name: "id", value: "alpha/in" } });
    expect(all.completion.values).toEqual(["alpha/in-note", "alpha/in-task"]);
    const bulk = await admin.complete({ ref, argument: { name: "id", value: "beta/bulk/c" } });
    expect(bulk.completion.values).toHaveLength(100);
    expect(bulk.completion.values[0]).toBe("beta/bulk/c000");
    expect(bulk.completion.hasMore).toBe(true);
    const narrow = await connect(must(surfaces[0]), NARROW);
    const seen = await narrow.complete({ ref, argument: { name: "id", value: "alpha/in" } });
    expect(seen.completion.values).toEqual(["alpha/in-note"]);
  });

  it("completes prompt arguments by name (id → ids, map → maps); unknown → none", async () => {
    const client = await connect(must(surfaces[0]));
    const ids = await client.complete({
      ref: { type: "ref/prompt", name: "triage" },
      argument: { name: "id", value: "alpha/in-n" },
    });
    expect(ids.completion.values).toEqual(["alpha/in-note"]);
    const none = await client.complete({
      ref: { type: "ref/prompt", name: "test_prompt_with_arguments" },
      argument: { name: "arg1", value: "x" },
    });
    expect(none.completion.values).toEqual([]);
  });
});

describe("routed surface: every bound KB's resources and prompts", () => {
  it("lists both KBs' resources across pages, reads by URI, completes kb names", async () => {
    const routed = new RoutedSurface(surfaces);
    const client = await connect(routed);
    const uris = await allResources(client);
    expect(uris).toContain("cartographer://main/alpha/in-note");
    expect(uris).toContain("cartographer://other/~index");
    const r = await client.readResource({ uri: "cartographer://main/alpha/in-note" });
    expect(r.contents[0]?.uri).toBe("cartographer://main/alpha/in-note");
    const t = await client.listResourceTemplates();
    expect(t.resourceTemplates[0]?.uriTemplate).toBe("cartographer://{kb}/{+id}");
    const ref = { type: "ref/resource" as const, uri: "cartographer://{kb}/{+id}" };
    const kbsDone = await client.complete({ ref, argument: { name: "kb", value: "o" } });
    expect(kbsDone.completion.values).toEqual(["other"]);
    const ids = await client.complete({
      ref,
      argument: { name: "id", value: "alpha/in-n" },
      context: { arguments: { kb: "main" } },
    });
    expect(ids.completion.values).toEqual(["alpha/in-note"]);
  });

  it("prompts carry a required kb argument; the text names the KB to pass", async () => {
    const client = await connect(new RoutedSurface(surfaces));
    const { prompts } = await client.listPrompts();
    const triage = prompts.find((p) => p.name === "triage");
    expect(triage?.arguments?.[0]).toMatchObject({ name: "kb", required: true });
    const r = await client.getPrompt({
      name: "triage",
      arguments: { kb: "main", id: "alpha/in-note" },
    });
    const text = r.messages[0]?.content.type === "text" ? r.messages[0].content.text : "";
    expect(text).toContain('pass kb: "main"');
    const e = await errorOf(client.getPrompt({ name: "triage", arguments: { id: "x" } }));
    expect(e.message).toContain("'kb' is required");
  });

  it("a narrow role lists only its concepts of the KBs it can read", async () => {
    const client = await connect(new RoutedSurface(surfaces), NARROW);
    expect(await allResources(client)).toEqual(["cartographer://main/alpha/in-note"]);
  });
});
