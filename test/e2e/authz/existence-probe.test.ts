/**
 * No existence probing (docs/decisions.md "A hidden resource answers exactly `not found`"), over
 * real HTTP: for every principal, every concept it cannot see, and every write-ish tool × proposed
 * type, the call on the hidden concept answers byte for byte what the same call on a free id in the
 * same map answers. The one exception is pinned too: where the free id would go through (the
 * principal could create it), the hidden concept answers `not found` and is left untouched
 * (decide.ts, table note 2).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compileAuth } from "../../../src/auth/tokens.js";
import type { MountedKb } from "../../../src/runtime/mount.js";
import { MCP_HEADERS, raw, serveMounts } from "../../http/helpers.js";
import { run, STALE } from "../../support/authz.js";
import { type TempMounts, tempMounts } from "../../support/mcp-kit.js";

type Rule = { kb: string; access: "r" | "rw"; maps?: string[]; types?: string[] };

/** Principals whose read and write reach differ by map and by type. */
const ROLES: Record<string, Rule[]> = {
  "alpha-notes": [{ kb: "main", access: "rw", maps: ["alpha"], types: ["note"] }],
  // Reads notes and docs everywhere, writes only notes in alpha: the original probe (a doc at
  // a free id was `forbidden`, at a hidden task `not found`).
  split: [
    { kb: "main", access: "r", types: ["note", "doc"] },
    { kb: "main", access: "rw", maps: ["alpha"], types: ["note"] },
  ],
  "notes-anywhere": [{ kb: "main", access: "rw", types: ["note"] }],
  "alpha-any": [{ kb: "main", access: "rw", maps: ["alpha"] }],
  "read-alpha-write-beta-notes": [
    { kb: "main", access: "r", maps: ["alpha"] },
    { kb: "main", access: "rw", maps: ["beta"], types: ["note"] },
  ],
};
const ADMIN = "probe-admin-token";
const tokenOf = (role: string) => `probe-${role}-token`;

const EXISTING: Record<string, string> = {
  "alpha/in-note": "note",
  "alpha/in-doc": "doc",
  "alpha/in-task": "task",
  "beta/out-note": "note",
  "beta/out-doc": "doc",
  "beta/out-task": "task",
};
const TYPES = ["note", "doc", "task", undefined] as const;

let kbs: TempMounts;
let main: MountedKb;
let server: Awaited<ReturnType<typeof serveMounts>>;
let counter = 0;

beforeAll(async () => {
  kbs = await tempMounts(["main"]);
  main = kbs.byName.main as MountedKb;
  await run(main, "map_create", { name: "alpha", kind: "map" });
  await run(main, "map_create", { name: "beta", kind: "map" });
  for (const [id, type] of Object.entries(EXISTING)) {
    await run(main, "concept_write", { id, frontmatter: { type, title: id }, body: "Body\n" });
  }
  const auth = compileAuth({
    mode: true,
    roles: Object.entries(ROLES).map(([name, rules]) => ({ name, rules })),
    tokens: [
      { token: ADMIN, id: "admin" },
      ...Object.keys(ROLES).map((name) => ({ token: tokenOf(name), id: name, roles: [name] })),
    ],
  });
  server = await serveMounts(kbs.mounts, { auth: { tokens: auth.store }, toolsProfile: "full" });
}, 60_000);
afterAll(async () => {
  await server?.close();
  await kbs?.cleanup();
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

function textOf(body: string): string {
  const parsed = JSON.parse(body) as { result?: { content?: { text?: string }[] } };
  return parsed.result?.content?.[0]?.text ?? "";
}

const fm = (type: string | undefined) => (type ? { type, title: "P" } : { title: "P" });

/** Every call naming target `t` (a hidden id or a free one), each a [label, tool, args] case. */
function casesFor(t: string, moveSource: string, map: string) {
  const cases: [string, string, Record<string, unknown>][] = [
    ["read", "concept_read", { id: t }],
    ["delete", "concept_delete", { id: t, if_match: STALE }],
    ["expand", "concept_expand", { id: t }],
    ["supersede id", "supersede", { id: t, by: "alpha/in-note" }],
    ["supersede by", "supersede", { id: "alpha/in-note", by: t }],
    ["move destination", "concept_move", { from: moveSource, to: t, rewrite_links: false }],
    // rewrite_links (the default) also needs whole-KB write: an occupied id must not show through.
    ["move destination, links", "concept_move", { from: moveSource, to: t }],
    [
      "move source",
      "concept_move",
      { from: t, to: `${map}/moved-${++counter}`, rewrite_links: false },
    ],
    ["batch delete", "concept_batch", { operations: [{ op: "delete", id: t, if_match: STALE }] }],
  ];
  for (const type of TYPES) {
    const write = { frontmatter: fm(type), body: "probe\n", if_match: STALE };
    cases.push([`write ${type}`, "concept_write", { id: t, ...write }]);
    cases.push([
      `batch write ${type}`,
      "concept_batch",
      { operations: [{ op: "write", id: t, ...write }] },
    ]);
    const patch = { old_string: "Body", new_string: "B", if_match: STALE };
    const withType = type ? { ...patch, frontmatter: { type } } : patch;
    cases.push([`patch ${type}`, "concept_patch", { id: t, ...withType }]);
    cases.push([
      `batch patch ${type}`,
      "concept_batch",
      { operations: [{ op: "patch", id: t, ...withType }] },
    ]);
  }
  return cases;
}

const DENIALS = new Set(["not found", "forbidden"]);

describe("a write never tells a hidden concept from a free id", () => {
  it("tools × proposed types × principals × hidden concepts: byte-identical answers", async () => {
    const before = await callBody(ADMIN, "concept_list", { limit: 100 });
    let compared = 0;
    let differedBefore = 0;
    let creatable = 0;
    for (const role of Object.keys(ROLES)) {
      const token = tokenOf(role);
      for (const hidden of Object.keys(EXISTING)) {
        if (textOf(await callBody(token, "concept_read", { id: hidden })) !== "not found") continue;
        const map = hidden.split("/")[0] as string;
        // A fresh note for the principal to move, so a move that goes through changes nothing else.
        const source = `alpha/src-${++counter}`;
        await run(main, "concept_write", {
          id: source,
          frontmatter: { type: "note", title: "S" },
          body: "Body\n",
        });
        for (const [label, tool, args] of casesFor(hidden, source, map)) {
          const free = `${map}/free-${++counter}`;
          const freeArgs = JSON.parse(JSON.stringify(args).replaceAll(`"${hidden}"`, `"${free}"`));
          const onHidden = await callBody(token, tool, args);
          const onFree = (await callBody(token, tool, freeArgs)).replaceAll(free, hidden);
          const what = `${role} ${label} on ${hidden}`;
          if (DENIALS.has(textOf(onFree))) {
            expect(onHidden, what).toBe(onFree);
            compared++;
          } else {
            // The free id went through: existence cannot be hidden here; it reads as hidden.
            expect(textOf(onHidden), what).toBe("not found");
            creatable++;
          }
          if (textOf(onHidden) !== textOf(onFree)) differedBefore++;
        }
      }
    }
    // The comparison ran over many denial pairs, and the exception is exercised too.
    expect(compared).toBeGreaterThan(200);
    expect(creatable).toBeGreaterThan(0);
    expect(differedBefore).toBe(creatable);
    // Nothing hidden changed: the admin listing of the seeded concepts is as before.
    const after = await callBody(ADMIN, "concept_list", { limit: 100 });
    const seeded = (body: string) =>
      (JSON.parse(textOf(body)) as { items: { id: string; hash?: string }[] }).items.filter(
        (i) => i.id in EXISTING,
      );
    expect(seeded(after)).toEqual(seeded(before));
  }, 60_000);
});
