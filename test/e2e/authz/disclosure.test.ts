/**
 * Non-disclosure (D118), over real HTTP with a narrow role:
 *  - a hidden existing concept/asset answers byte-for-byte what a missing one does;
 *  - collections never reveal a hidden concept (ids, counts, totals, snippets, truncation), even
 *    when the hidden concepts are crafted to rank first, and `limit` counts visible results only.
 * The KB is generated with bench/gen-kb.ts at 2,000 concepts (not 10,000) to keep this test a few
 * seconds on a shared 2-core machine; the filter runs in SQL either way.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BENCH_GIT_ENV, generateKb } from "../../../bench/gen-kb.js";
import { compileAuth } from "../../../src/auth/tokens.js";
import { type HttpServerHandle, startHttpServer } from "../../../src/http/server.js";
import { silentLogger } from "../../../src/logger.js";
import { type Cartographer, createCartographer } from "../../../src/mcp/app.js";
import { type MountedKb, mountKb } from "../../../src/runtime/mount.js";
import { MCP_HEADERS, raw } from "../../http/helpers.js";
import { run, STALE } from "../../support/authz.js";
import { useTempDirs } from "../../support/temp-dir.js";

const TERM = "zebraquark";
const NARROW = "disclosure-narrow-token";
const ADMIN = "disclosure-admin-token";

// Registered first: its hook runs after the one below (server and app closed).
const newDir = useTempDirs("carto-disclosure-", "file");
let mount: MountedKb;
let server: HttpServerHandle;
let app: Cartographer | undefined;
let visibleMap: string;
const hidden: string[] = [];
const visible: string[] = [];

beforeAll(async () => {
  const root = join(newDir(), "kb");
  const concepts = await generateKb(root, { concepts: 2000, maps: 8, seed: 5 });
  // The writes below land in a later second than the generator's commit, so changes_since
  // (newest first, whole seconds, 100 by default) lists them above its 2,000 additions.
  await new Promise((r) => setTimeout(r, 1010 - (Date.now() % 1000)));
  const maps = [...new Set(concepts.map((c) => c.map))];
  visibleMap = maps[0] as string;
  const author = { name: BENCH_GIT_ENV.GIT_AUTHOR_NAME, email: BENCH_GIT_ENV.GIT_AUTHOR_EMAIL };
  mount = await mountKb(
    { name: "main", root, allowArtifactWrite: false, autocommit: true, gitAuthor: author },
    { logger: silentLogger },
  );
  const typeIn = (map: string) => concepts.find((c) => c.map === map)?.type as string;
  const anchor = concepts.find((c) => c.map === visibleMap)?.id as string;
  // Hidden: in other maps, stuffed with the term so they would rank first.
  for (const [i, map] of maps.slice(1, 4).entries()) {
    const id = `${map}/secret-${i}`; // the id itself does not hold the term
    hidden.push(id);
    await run(mount, "concept_write", {
      id,
      frontmatter: { type: typeIn(map), title: `${TERM} ${TERM} ${TERM} secret ${i}` },
      body: `${TERM} `.repeat(40),
    });
  }
  // Visible: in the role's map, the term once, linking to the hidden ones.
  for (let i = 0; i < 4; i++) {
    const id = `${visibleMap}/open-${i}`;
    visible.push(id);
    await run(mount, "concept_write", {
      id,
      frontmatter: { type: typeIn(visibleMap), title: `Open note ${i}` },
      body: `Mentions ${TERM} once. See [[${anchor}]].\n`,
    });
  }
  // A visible concept whose links point at hidden ones (its own body is readable; its neighbors
  // are not).
  await run(mount, "concept_write", {
    id: `${visibleMap}/links-out`,
    frontmatter: { type: typeIn(visibleMap), title: "Links out" },
    body: `See [[${hidden[0]}]], [[${hidden[1]}]] and [[${visible[0]}]].\n`,
  });
  await run(mount, "concept_write", {
    id: hidden[2] as string,
    frontmatter: { type: typeIn(maps[3] as string), title: `${TERM} ${TERM} ${TERM} secret 2` },
    body: `${`${TERM} `.repeat(40)}\nBack to [[${visibleMap}/links-out]].\n`,
  });
  await run(mount, "asset_write", { path: `${maps[1]}/secret.bin`, content_base64: "AAAA" });
  const auth = compileAuth({
    mode: true,
    roles: [{ name: "one-map", rules: [{ kb: "main", access: "rw", maps: [visibleMap] }] }],
    tokens: [
      { token: NARROW, id: "narrow", roles: ["one-map"] },
      { token: ADMIN, id: "admin" },
    ],
  });
  app = await createCartographer({ mounts: [mount], logger: silentLogger });
  server = await startHttpServer({
    app,
    port: 0,
    version: "test",
    auth: { tokens: auth.store },
  });
}, 60_000);
afterAll(async () => {
  await server?.close();
  await app?.close();
});

/** The full HTTP body of one tools/call (JSON-RPC id fixed, so bodies compare byte for byte). */
async function callBody(token: string, name: string, args: Record<string, unknown>) {
  const r = await raw(server.port, {
    path: "/mcp/main",
    headers: { ...MCP_HEADERS, Authorization: `Bearer ${token}` },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name, arguments: args },
    }),
  });
  expect(r.status).toBe(200);
  return r.body;
}

async function callJson(token: string, name: string, args: Record<string, unknown>) {
  const body = JSON.parse(await callBody(token, name, args)) as {
    result: { content: { text: string }[]; isError?: boolean };
  };
  const text = body.result.content[0]?.text ?? "";
  return { text, isError: body.result.isError === true };
}

function assertNoHidden(label: string, text: string): void {
  for (const id of hidden) expect(text.includes(id), `${label} reveals ${id}`).toBe(false);
  expect(text.includes("secret"), `${label} reveals a hidden title/id`).toBe(false);
}

describe("a hidden concept answers exactly like a missing one", () => {
  it("concept_read, concept_patch, concept_delete, asset_read, graph_neighbors: identical bodies", async () => {
    const missing = (id: string) => id.replace("secret", "absent");
    const cases: [string, (id: string) => Record<string, unknown>][] = [
      ["concept_read", (id) => ({ id })],
      ["concept_patch", (id) => ({ id, old_string: TERM, new_string: "x" })],
      ["concept_delete", (id) => ({ id, if_match: STALE })],
      ["graph_neighbors", (id) => ({ id })],
    ];
    for (const [tool, args] of cases) {
      const h = hidden[0] as string;
      const a = await callBody(NARROW, tool, args(h));
      // graph_neighbors (a collection) answers a start it cannot see with the handler's own
      // not_found naming the id sent; so compare with the missing id put back to the hidden one.
      const b = (await callBody(NARROW, tool, args(missing(h)))).replaceAll(missing(h), h);
      expect({ tool, body: a }).toEqual({ tool, body: b });
      if (tool !== "graph_neighbors") expect(a).toContain('"text":"not found"');
    }
    const secretAsset = hidden[0]?.split("/")[0];
    const a = await callBody(NARROW, "asset_read", { path: `${secretAsset}/secret.bin` });
    const b = await callBody(NARROW, "asset_read", { path: `${secretAsset}/absent.bin` });
    expect(a).toBe(b);
    expect(a).toContain('"text":"not found"');
  });
});

describe("collections under a one-map role never show a hidden concept", () => {
  it("search: the hidden concepts would rank first for admin, the role sees only visible ones, limit counts visible results", async () => {
    const asAdmin = JSON.parse((await callJson(ADMIN, "search", { query: TERM, limit: 3 })).text);
    const adminIds = JSON.stringify(asAdmin);
    expect(adminIds).toContain(hidden[0]); // the crafted ranking works
    for (const limit of [1, 2, 3, 10]) {
      const { text, isError } = await callJson(NARROW, "search", { query: TERM, limit });
      expect(isError).toBe(false);
      assertNoHidden(`search limit ${limit}`, text);
      const result = JSON.parse(text) as {
        results: { id: string }[];
        total?: number;
        truncated?: boolean;
      };
      const ids = result.results.map((r) => r.id);
      expect(ids.length).toBe(Math.min(limit, visible.length));
      for (const id of ids) expect(id.startsWith(`${visibleMap}/`)).toBe(true);
      if (result.total !== undefined) expect(result.total).toBe(visible.length);
      if (result.truncated !== undefined) expect(result.truncated).toBe(limit < visible.length);
    }
  });

  it("concept_list, atlas_overview, map_list, changes_since, graph_neighbors reveal nothing hidden", async () => {
    const list = await callJson(NARROW, "concept_list", { prefix: "", limit: 5 });
    assertNoHidden("concept_list", list.text);
    const listed = JSON.parse(list.text) as {
      items: { id: string }[];
      total: number;
      truncated: boolean;
    };
    expect(listed.items.length).toBe(5);
    for (const item of listed.items) expect(item.id.startsWith(`${visibleMap}/`)).toBe(true);
    const all = JSON.parse((await callJson(NARROW, "concept_list", { limit: 5000 })).text) as {
      items: { id: string }[];
      total: number;
    };
    expect(listed.total).toBe(all.items.length);
    expect(all.items.every((i) => i.id.startsWith(`${visibleMap}/`))).toBe(true);
    for (const [tool, args] of [
      ["atlas_overview", {}],
      ["map_list", {}],
      ["changes_since", { since: "2000-01-01T00:00:00Z" }],
      ["graph_neighbors", { id: `${visibleMap}/links-out` }],
      ["graph_neighbors", { id: `${visibleMap}/links-out`, direction: "in" }],
    ] as [string, Record<string, unknown>][]) {
      const got = await callJson(NARROW, tool, args);
      expect(got.isError, `${tool}: ${got.text.slice(0, 200)}`).toBe(false);
      assertNoHidden(tool, got.text);
    }
    // Sanity: admin sees them through the same tools (the assertions above can fail).
    expect(
      (await callJson(ADMIN, "changes_since", { since: "2000-01-01T00:00:00Z" })).text,
    ).toContain(hidden[0]);
    const adminGraph = await callJson(ADMIN, "graph_neighbors", { id: `${visibleMap}/links-out` });
    expect(adminGraph.text).toContain(hidden[0]);
    expect(adminGraph.text).toContain(hidden[2]);
  });
});
