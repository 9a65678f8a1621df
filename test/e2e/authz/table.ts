/**
 * The authorization matrix as data. Each row: a tool, one argument set targeting content the
 * narrow role covers (`inside`) and one it does not (`outside`), and the expected answers.
 *
 * Expectations: `allow` = the call ran (any result that is not a denial; domain errors such as
 * stale_write are what the args provoke, so state changes never matter), `forbidden` / `not found`
 * = that exact denial text. admin and the kb:main:rw scope are allowed everything; no token is
 * always HTTP 401. `r` = kb:main:r scope; `role` = [inside, outside] for the alpha/note role;
 * `other` = a kb:other:rw token calling main (per-KB endpoint without initialize, or routed).
 */
import { IN, IN_TASK, OUT, STALE } from "../../support/authz.js";

export type Expect = "allow" | "forbidden" | "not found";

export interface Row {
  tool: string;
  inside: Record<string, unknown>;
  outside: Record<string, unknown>;
  r: Expect;
  role: [Expect, Expect];
  /** One answer for both argument sets, or [inside, outside]. */
  other: Expect | [Expect, Expect];
}

const A: Expect = "allow";
const F: Expect = "forbidden";
const N: Expect = "not found";

const same = (args: Record<string, unknown>) => ({ inside: args, outside: args });
const byId = (make: (id: string) => Record<string, unknown>) => ({
  inside: make(IN),
  outside: make(OUT),
});
const note = { type: "note", title: "t" };

/** Whole-KB tools: a selector-free rule with the tool's access. */
const wholeRead = (tool: string, args: Record<string, unknown> = {}): Row => ({
  tool,
  ...same(args),
  r: A,
  role: [F, F],
  other: F,
});
const wholeWrite = (tool: string, args: Record<string, unknown> = {}): Row => ({
  tool,
  ...same(args),
  r: F,
  role: [F, F],
  other: F,
});
/** Collections: any rule with the access; results filtered. */
const collection = (tool: string, inside: Record<string, unknown>, outside = inside): Row => ({
  tool,
  inside,
  outside,
  r: A,
  role: [A, A],
  other: F,
});

export const ROWS: readonly Row[] = [
  collection("atlas_overview", {}),
  collection("map_list", {}),
  wholeRead("index_get"),
  wholeRead("template_list"),
  wholeRead("log_tail"),
  { tool: "concept_read", ...byId((id) => ({ id })), r: A, role: [A, N], other: N },
  collection("concept_list", { map: "alpha" }, { map: "beta" }),
  collection("search", { query: "body" }),
  collection("changes_since", { since: "2000-01-01T00:00:00Z" }),
  collection("graph_neighbors", { id: IN }, { id: OUT }),
  wholeRead("validate"),
  wholeRead("lint"),
  wholeRead("gate_check"),
  wholeRead("kb_status"),
  wholeRead("commit_gate"),
  collection("contradiction_report", {}),
  wholeWrite("conflict_resolve", { id: IN, resolution: "dismiss" }),
  {
    tool: "concept_write",
    ...byId((id) => ({ id, frontmatter: note, body: "x", if_match: STALE })),
    r: F,
    role: [A, N],
    other: N,
  },
  {
    tool: "concept_new",
    inside: { id: "alpha/new-one", template: "no-such-template", frontmatter: note },
    outside: { id: "beta/new-one", template: "no-such-template", frontmatter: note },
    r: F,
    role: [A, N],
    other: N,
  },
  {
    tool: "concept_patch",
    ...byId((id) => ({ id, old_string: "zzz-absent", new_string: "y" })),
    r: F,
    role: [A, N],
    other: N,
  },
  {
    tool: "concept_delete",
    ...byId((id) => ({ id, if_match: STALE })),
    r: F,
    role: [A, N],
    other: N,
  },
  // Expanding keeps the id; a second call is already_exists (not a denial).
  { tool: "concept_expand", ...byId((id) => ({ id })), r: F, role: [A, N], other: N },
  {
    tool: "concept_move",
    // The destination exists: the move fails as a conflict after authorization.
    inside: { from: IN, to: IN, rewrite_links: false },
    outside: { from: OUT, to: OUT, rewrite_links: false },
    r: F,
    role: [A, N],
    other: N,
  },
  { tool: "supersede", ...byId((id) => ({ id, by: id })), r: F, role: [A, N], other: N },
  {
    tool: "concept_batch",
    ...byId((id) => ({ operations: [{ op: "delete", id, if_match: STALE }] })),
    r: F,
    role: [A, N],
    other: N,
  },
  wholeWrite("map_create", { name: "alpha", kind: "map" }),
  wholeWrite("map_delete", { name: "zzz-absent" }),
  {
    tool: "index_patch",
    inside: { scope: "alpha", old_string: "zzz-absent", new_string: "y" },
    outside: { scope: "beta", old_string: "zzz-absent", new_string: "y" },
    r: F,
    // A type-restricted rule does not cover a map's index.md.
    role: [N, N],
    other: N,
  },
  wholeWrite("log_append", { entry: "matrix entry" }),
  wholeWrite("snapshot", { label: "matrix" }),
  {
    tool: "asset_read",
    inside: { path: "alpha/pic.bin" },
    outside: { path: "beta/pic.bin" },
    r: A,
    // Assets carry no type: a type-restricted role never sees them.
    role: [N, N],
    other: N,
  },
  {
    tool: "asset_list",
    inside: {},
    outside: { prefix: "beta" },
    r: A,
    role: [A, N],
    // No prefix: an untargeted listing (no rule on main → forbidden); a prefix is a target.
    other: [F, N],
  },
  {
    tool: "asset_write",
    inside: { path: "alpha/pic.bin", content_base64: "AAAA", if_match: STALE },
    outside: { path: "beta/pic.bin", content_base64: "AAAA", if_match: STALE },
    r: F,
    role: [N, N],
    other: N,
  },
  {
    tool: "asset_delete",
    inside: { path: "alpha/pic.bin", if_match: STALE },
    outside: { path: "beta/pic.bin", if_match: STALE },
    r: F,
    role: [N, N],
    other: N,
  },
  wholeRead("artifact_read", { path: "absent.txt" }),
  wholeRead("artifact_list"),
  wholeWrite("artifact_write", { path: "a.txt", content: "x", if_match: STALE }),
  wholeWrite("artifact_delete", { path: "absent.txt" }),
  wholeRead("skill_list"),
  wholeWrite("skill_install", { name: "zzz-no-such-skill" }),
  // Provisioning (docs/provisioning.md): collections; a narrow role sees bundled artifacts only.
  collection("artifact_manifest", {}),
  collection("skill_get", { name: "cartographer-kb-loop" }),
  collection("agent_list", {}),
  collection("hook_list", {}),
  collection("mcp_list", {}),
  wholeWrite("index_rebuild"),
  wholeWrite("reindex"),
  // Reading a descriptor is a concept read (a note answers invalid_argument: not a Service).
  { tool: "service_get", ...byId((id) => ({ id })), r: A, role: [A, N], other: N },
  collection("service_list", {}),
  // Resolving secrets is judged as a write of the concept plus whole-KB rw (Go D47).
  { tool: "secret_resolve", ...byId((id) => ({ id })), r: F, role: [F, N], other: N },
  wholeWrite("secret_set", { path: "secrets/app.sops.yaml", key: "/a", value: "v" }),
  // Remote sync (docs/sync.md "Tools"): status is whole-KB; conflicts are judged per concept.
  wholeRead("sync_status"),
  collection("conflicts_list", {}),
  {
    tool: "git_conflict_resolve",
    ...byId((id) => ({ id, strategy: "ours" })),
    r: F,
    role: [A, N],
    other: N,
  },
];

/** Extra cases the role table above cannot express with one inside/outside pair. */
export const ROLE_EXTRAS: readonly { tool: string; args: Record<string, unknown>; role: Expect }[] =
  [
    // Same map, type outside the role: hidden like a missing concept.
    { tool: "concept_read", args: { id: IN_TASK }, role: N },
    // Readable but a write would give it a type the role may not write.
    {
      tool: "concept_write",
      args: { id: IN, frontmatter: { type: "task", title: "t" }, body: "x", if_match: STALE },
      role: F,
    },
    // Link rewriting needs whole-KB write.
    { tool: "concept_move", args: { from: IN, to: IN, rewrite_links: true }, role: F },
    // A destination the role cannot read (same map, type task) is hidden; for admin it exists.
    { tool: "concept_move", args: { from: IN, to: IN_TASK, rewrite_links: false }, role: N },
    // service_get resolving secrets needs whole-KB rw, like secret_resolve.
    { tool: "service_get", args: { id: IN, resolve_secrets: true }, role: F },
    // depth > 1 needs whole-KB read.
    { tool: "graph_neighbors", args: { id: IN, depth: 2 }, role: F },
    // The root index needs whole-KB write.
    { tool: "index_patch", args: { old_string: "zzz-absent", new_string: "y" }, role: F },
  ];
