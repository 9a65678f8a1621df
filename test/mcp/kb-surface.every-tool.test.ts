/**
 * Every registered tool, called through the SDK Client against a temp KB with artifact writes
 * allowed: each answers a compact-JSON success, and each write call makes exactly one commit
 * named after the tool (tag-only and index-only writes make none, as documented).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { allTools } from "../../src/tools/registry.js";
import { commitCount, git, okJson, type SurfaceKb, surfaceKb, textOf } from "./surface-kb.js";

interface Row {
  tool: string;
  args: Record<string, unknown>;
  /** Commits this call makes; default 1 for a write tool, 0 for a read tool. */
  commits?: number;
  /** Extra assertion on the parsed result. */
  check?: (json: Record<string, unknown>) => void;
  /** The error this call answers instead (no commit): secret tools on a KB without sops. */
  error?: RegExp;
}

const b64 = (s: string) => Buffer.from(s).toString("base64");

/** In order: earlier rows create what later rows read, move or delete. */
const ROWS: Row[] = [
  { tool: "atlas_overview", args: {} },
  { tool: "kb_status", args: {}, check: (j) => expect(j.name).toBe("test") },
  { tool: "map_create", args: { name: "infra", kind: "map", title: "Infra" } },
  { tool: "map_create", args: { name: "scratch", kind: "journal" } },
  { tool: "map_list", args: {} },
  { tool: "template_list", args: {} },
  {
    tool: "concept_write",
    args: {
      id: "infra/db",
      frontmatter: { type: "service", title: "DB" },
      body: "Database server. Serves [[infra/web]].\n",
    },
  },
  {
    tool: "concept_write",
    args: { id: "infra/web", frontmatter: { type: "service" }, body: "Web front.\n" },
  },
  {
    tool: "concept_write",
    args: { id: "infra/old", frontmatter: { type: "service" }, body: "Old box.\n" },
  },
  {
    tool: "concept_write",
    args: {
      id: "infra/claim",
      frontmatter: { type: "note", contradicts: "infra/old" },
      body: "Claim.\n",
    },
  },
  {
    tool: "concept_new",
    args: { id: "notes/memo1", template: "memo", variables: { title: "Hello" } },
  },
  {
    tool: "concept_read",
    args: { id: "infra/db" },
    check: (j) => expect(JSON.stringify(j)).toContain("Database server"),
  },
  { tool: "concept_list", args: {} },
  { tool: "search", args: { query: "database" } },
  { tool: "changes_since", args: { since: "2000-01-01T00:00:00Z" } },
  { tool: "graph_neighbors", args: { id: "infra/db" } },
  { tool: "validate", args: {} },
  { tool: "lint", args: {} },
  { tool: "gate_check", args: {} },
  { tool: "commit_gate", args: {} },
  { tool: "contradiction_report", args: {} },
  { tool: "conflict_resolve", args: { id: "infra/claim", resolution: "dismiss" } },
  { tool: "index_get", args: {} },
  { tool: "log_tail", args: {} },
  {
    tool: "concept_patch",
    args: { id: "infra/db", old_string: "Database server.", new_string: "The database." },
  },
  { tool: "concept_expand", args: { id: "infra/web" } },
  { tool: "concept_move", args: { from: "notes/memo1", to: "notes/memo2" } },
  { tool: "supersede", args: { id: "infra/old", by: "infra/db", reason: "merged" } },
  {
    tool: "concept_batch",
    args: {
      operations: [{ op: "write", id: "notes/b1", frontmatter: { type: "note" }, body: "b\n" }],
    },
  },
  { tool: "concept_delete", args: { id: "notes/b1" } },
  { tool: "index_patch", args: { append: "- [[infra/db]] the database" } },
  { tool: "log_append", args: { entry: "Mapped the infra." } },
  { tool: "snapshot", args: { label: "surface-test" } },
  { tool: "asset_write", args: { path: "infra/diagram.png", content_base64: b64("PNG") } },
  { tool: "asset_read", args: { path: "infra/diagram.png" } },
  { tool: "asset_list", args: {} },
  { tool: "asset_delete", args: { path: "infra/diagram.png" } },
  { tool: "artifact_write", args: { path: "skills/report/SKILL.md", content: "hello" } },
  { tool: "artifact_read", args: { path: "skills/report/SKILL.md" } },
  { tool: "artifact_list", args: {} },
  { tool: "artifact_delete", args: { path: "skills/report/SKILL.md" } },
  { tool: "skill_list", args: {} },
  { tool: "skill_install", args: { name: "cartographer-kb-loop" } },
  {
    tool: "artifact_manifest",
    args: {},
    check: (j) => expect(JSON.stringify(j.artifacts)).toContain('"name":"kb-create"'),
  },
  { tool: "skill_get", args: { name: "cartographer-kb-loop" } },
  { tool: "agent_list", args: {} },
  { tool: "hook_list", args: {} },
  { tool: "mcp_list", args: {} },
  { tool: "index_rebuild", args: {} },
  { tool: "reindex", args: {} },
  { tool: "map_delete", args: { name: "scratch" } },
  {
    tool: "concept_write",
    args: { id: "services/db", frontmatter: { type: "Service", title: "DB" }, body: "Postgres.\n" },
  },
  { tool: "service_list", args: {}, check: (j) => expect(j.total).toBe(1) },
  { tool: "service_get", args: { id: "services/db" } },
  // The test KB sets no sops_age_key_file (test/services covers real sops).
  { tool: "secret_resolve", args: { id: "services/db" }, error: /^not_configured: / },
  {
    tool: "secret_set",
    args: { path: "secrets/db.sops.yaml", key: "/pw", value: "x" },
    error: /^not_configured: /,
  },
  // The test KB has no remote (test/sync covers real remotes).
  { tool: "sync_status", args: {}, check: (j) => expect(j.state).toBe("no_remote") },
  { tool: "conflicts_list", args: {}, check: (j) => expect(j.total).toBe(0) },
  {
    tool: "git_conflict_resolve",
    args: { id: "infra/db", strategy: "ours" },
    error: /^not_found: no conflict is registered for infra\/db/,
  },
];

/** Writes that by design make no commit: a tag, and the (uncommitted) search index. */
const NO_COMMIT = new Set(["snapshot", "reindex", "index_rebuild"]);

let kb: SurfaceKb;
beforeAll(async () => {
  kb = await surfaceKb({
    allowArtifactWrite: true,
    files: { "templates/memo.md": "---\ntype: memo\ntitle: {{title}}\n---\n# {{title}}\n" },
  });
});
afterAll(async () => kb.cleanup());

describe("every registered tool through the SDK client", () => {
  it("the table covers every tool of allTools()", () => {
    const covered = new Set(ROWS.map((r) => r.tool));
    expect(
      allTools()
        .filter((s) => !covered.has(s.name))
        .map((s) => s.name),
    ).toEqual([]);
  });

  it("each call succeeds with compact JSON; each write makes exactly one commit", async () => {
    const readOnly = new Map(allTools().map((s) => [s.name, s.readOnly]));
    for (const row of ROWS) {
      const before = commitCount(kb.root);
      const result = await kb.call(row.tool, row.args);
      const text = textOf(result);
      if (row.error) {
        expect({ tool: row.tool, isError: result.isError, text }).toMatchObject({
          isError: true,
          text: expect.stringMatching(row.error),
        });
        expect(commitCount(kb.root) - before, `commits made by ${row.tool}`).toBe(0);
        continue;
      }
      expect(result.isError ?? false, `${row.tool}: ${text}`).toBe(false);
      // Compact JSON: the text is exactly the re-serialization of what it parses to.
      expect(JSON.stringify(JSON.parse(text)), row.tool).toBe(text);
      row.check?.(okJson(result));
      const expected = row.commits ?? (readOnly.get(row.tool) || NO_COMMIT.has(row.tool) ? 0 : 1);
      expect(commitCount(kb.root) - before, `commits made by ${row.tool}`).toBe(expected);
      if (expected === 1) {
        expect(git(kb.root, ["log", "-1", "--format=%s"])).toMatch(new RegExp(`^${row.tool}: `));
      }
    }
  });

  it("the snapshot left a tag and the working tree is clean", () => {
    expect(git(kb.root, ["tag", "--list"])).toContain("surface-test");
    expect(git(kb.root, ["status", "--porcelain"])).toBe("");
  });
});
