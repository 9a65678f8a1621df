/**
 * No existence probing through resources (docs/decisions.md "A missing, hidden or foreign resource
 * is one error"), over real HTTP with bearer tokens: for a role that reads notes of map alpha only,
 * `resources/read` of a concept it cannot see answers byte for byte what the same request answers
 * once that concept is gone; a free id answers the same bytes with its own URI. Completion does not
 * offer the hidden id either.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compileAuth } from "../../../src/auth/tokens.js";
import type { MountedKb } from "../../../src/runtime/mount.js";
import { MCP_HEADERS, raw, serveMounts } from "../../http/helpers.js";
import { run } from "../../support/authz.js";
import { type TempMounts, tempMounts } from "../../support/mcp-kit.js";

const ADMIN = "res-probe-admin-token";
const NARROW = "res-probe-narrow-token";
let kbs: TempMounts;
let main: MountedKb;
let server: Awaited<ReturnType<typeof serveMounts>>;

beforeAll(async () => {
  kbs = await tempMounts(["main"]);
  main = kbs.byName.main as MountedKb;
  await run(main, "map_create", { name: "alpha", kind: "map" });
  await run(main, "concept_write", {
    id: "alpha/in-note",
    frontmatter: { type: "note" },
    body: "seen\n",
  });
  await run(main, "concept_write", {
    id: "alpha/secret-task",
    frontmatter: { type: "task" },
    body: "hidden\n",
  });
  const auth = compileAuth({
    mode: true,
    roles: [
      { name: "notes", rules: [{ kb: "main", access: "r", maps: ["alpha"], types: ["note"] }] },
    ],
    tokens: [
      { token: ADMIN, id: "admin" },
      { token: NARROW, id: "narrow", roles: ["notes"] },
    ],
  });
  server = await serveMounts(kbs.mounts, { auth: { tokens: auth.store } });
}, 60_000);
afterAll(async () => {
  await server?.close();
  await kbs?.cleanup();
});

async function rpc(token: string, method: string, params: Record<string, unknown>) {
  const r = await raw(server.port, {
    path: "/mcp/main",
    headers: { ...MCP_HEADERS, Authorization: `Bearer ${token}` },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  expect(r.status).toBe(200);
  return r.body;
}

describe("resources: hidden ≡ missing over HTTP", () => {
  it("a hidden concept reads exactly as the same URI once deleted, and as a free id", async () => {
    const uri = "cartographer://main/alpha/secret-task";
    const hidden = await rpc(NARROW, "resources/read", { uri });
    const free = await rpc(NARROW, "resources/read", { uri: "cartographer://main/alpha/free-id" });
    expect(hidden).toContain('"code":-32002');
    expect(free.split("alpha/free-id").join("alpha/secret-task")).toBe(hidden);
    // The admin sees it; then it is deleted and the narrow role asks again: same bytes.
    expect(await rpc(ADMIN, "resources/read", { uri })).toContain("hidden");
    await run(main, "concept_delete", { id: "alpha/secret-task" });
    expect(await rpc(NARROW, "resources/read", { uri })).toBe(hidden);
  });

  it("completion and listing never offer what the role cannot see", async () => {
    const done = await rpc(NARROW, "completion/complete", {
      ref: { type: "ref/resource", uri: "cartographer://main/{+id}" },
      argument: { name: "id", value: "alpha/" },
    });
    expect(JSON.parse(done).result.completion.values).toEqual(["alpha/in-note"]);
    const listed = JSON.parse(await rpc(NARROW, "resources/list", {})).result.resources.map(
      (r: { uri: string }) => r.uri,
    );
    expect(listed).toEqual(["cartographer://main/alpha/in-note"]);
  });
});
