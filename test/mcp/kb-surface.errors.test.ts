/**
 * Every documented error, through the SDK Client: an `isError` result whose single text is
 * `<code>: <message>` (the message naming what was wrong), and no commit for a failed call.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commitCount, okJson, type SurfaceKb, surfaceKb, textOf } from "./surface-kb.js";

let kb: SurfaceKb;
beforeAll(async () => {
  kb = await surfaceKb({
    allowArtifactWrite: true,
    files: {
      "templates/memo.md": "---\ntype: memo\ntitle: {{title}}\n---\n# {{title}}\n",
      "data/t/twin.md": "---\ntype: note\n---\nflat\n",
      "data/t/twin/index.md": "---\ntype: note\n---\nexpanded\n",
      "data/bare/_map.md": "---\ntype: Map\nkind: map\n---\n",
    },
  });
  const setup: [string, Record<string, unknown>][] = [
    ["concept_write", { id: "n/one", frontmatter: { type: "note" }, body: "alpha beta\n" }],
    ["concept_write", { id: "n/dup", frontmatter: { type: "note" }, body: "dup dup\n" }],
    [
      "map_create",
      { name: "svc", kind: "map", concept_types: ["service"], ontology_mode: "strict" },
    ],
    ["map_create", { name: "owned", kind: "map", required_fields: ["owner"] }],
    ["concept_write", { id: "svc/db", frontmatter: { type: "service" }, body: "db\n" }],
  ];
  for (const [name, args] of setup) {
    const r = await kb.call(name, args);
    if (r.isError) throw new Error(`setup ${name} failed: ${textOf(r)}`);
  }
});
afterAll(async () => kb.cleanup());

/** Calls, asserts an error result matching `pattern` and that no commit was made; returns text. */
async function expectError(
  name: string,
  args: Record<string, unknown>,
  pattern: RegExp,
): Promise<string> {
  const before = commitCount(kb.root);
  const result = await kb.call(name, args);
  const text = textOf(result);
  expect(result.isError, `${name} should fail, answered ${text}`).toBe(true);
  expect(text).toMatch(pattern);
  expect(commitCount(kb.root), `a failed ${name} must not commit`).toBe(before);
  return text;
}

describe("documented errors through the surface", () => {
  it("an unknown tool is `tool not found: <name>`", async () => {
    const r = await kb.call("no_such_tool", {});
    expect(r.isError).toBe(true);
    expect(textOf(r)).toBe("tool not found: no_such_tool");
  });

  it("invalid_argument names the argument (missing, wrong type, unknown)", async () => {
    await expectError("concept_read", {}, /^invalid_argument: .*\bid\b/);
    await expectError("concept_read", { id: 5 }, /^invalid_argument: .*\bid\b/);
    await expectError("concept_read", { id: "n/one", bogus: 1 }, /^invalid_argument: .*\bbogus\b/);
    await expectError(
      "concept_write",
      { id: "n/x", frontmatter: { type: "note" } },
      /^invalid_argument: .*\bbody\b/,
    );
  });

  it("stale_write when if_match is not the current hash", async () => {
    await expectError(
      "concept_write",
      { id: "n/one", frontmatter: { type: "note" }, body: "new\n", if_match: "0".repeat(64) },
      /^stale_write: /,
    );
  });

  it("not_found for a missing concept, template and map", async () => {
    await expectError("concept_read", { id: "n/missing" }, /^not_found: .*n\/missing/);
    await expectError(
      "concept_new",
      { id: "n/new", template: "nope", variables: {} },
      /^not_found: .*nope/,
    );
    await expectError("map_delete", { name: "nomap" }, /^not_found: .*nomap/);
  });

  it("index_get takes only a map or journal as scope and says how to start a missing index", async () => {
    await expectError("index_get", { scope: "nomap" }, /^not_found: .*nomap.*map_list/);
    // n/one is a concept, not a map: its folder form must not be served as a curated index.
    okJson(
      await kb.call("concept_write", {
        id: "n/folder",
        frontmatter: { type: "note" },
        body: "x\n",
      }),
    );
    okJson(await kb.call("concept_expand", { id: "n/folder" }));
    await expectError("index_get", { scope: "n/folder" }, /^not_found: .*n\/folder/);
    // `bare` is a hand-made map without an index.md: the error points at index_patch append.
    await expectError("index_get", { scope: "bare" }, /^not_found: .*bare.*index_patch/);
  });

  it("old_string_not_found names the failing edit; old_string_ambiguous", async () => {
    const text = await expectError(
      "concept_patch",
      {
        id: "n/one",
        edits: [
          { old_string: "alpha", new_string: "gamma" },
          { old_string: "absent", new_string: "x" },
        ],
      },
      /^old_string_not_found: /,
    );
    expect(text).toMatch(/edit 2/);
    await expectError(
      "concept_patch",
      { id: "n/dup", old_string: "dup", new_string: "x" },
      /^old_string_ambiguous: /,
    );
  });

  it("expanded_ambiguous for a concept present as <id>.md and <id>/index.md", async () => {
    await expectError(
      "concept_write",
      { id: "t/twin", frontmatter: { type: "note" }, body: "x\n" },
      /^expanded_ambiguous: .*t\/twin/,
    );
  });

  it("invalid_id for an id outside the id grammar", async () => {
    await expectError("concept_read", { id: "Bad/ID" }, /^invalid_id: /);
    await expectError(
      "concept_write",
      { id: "../escape", frontmatter: { type: "note" }, body: "x\n" },
      /^invalid_id: /,
    );
  });

  it("already_exists for concept_new on an existing id and a duplicate map", async () => {
    const text = await expectError(
      "concept_new",
      { id: "n/one", template: "memo", variables: { title: "x" } },
      /^already_exists: .*n\/one/,
    );
    // The advice names tools the agent has, not the store's internal write modes.
    expect(text).not.toMatch(/\bmode\b/);
    expect(text).toMatch(/concept_patch|concept_write/);
    await expectError("map_create", { name: "svc", kind: "map" }, /^already_exists: .*svc/);
  });

  it("not_empty when deleting a map that still holds concepts", async () => {
    await expectError("map_delete", { name: "svc" }, /^not_empty: .*data\/svc\/db\.md/);
  });

  it("too_large for an artifact over the limit", async () => {
    await expectError(
      "artifact_write",
      { path: "skills/big/big.txt", content: "z".repeat(256 * 1024 + 1) },
      /^too_large: /,
    );
  });

  it("validation_failed for a strict palette and for a missing required field", async () => {
    await expectError(
      "concept_write",
      { id: "svc/cake", frontmatter: { type: "recipe" }, body: "x\n" },
      /^validation_failed: .*recipe/,
    );
    await expectError(
      "concept_write",
      { id: "owned/thing", frontmatter: { type: "note" }, body: "x\n" },
      /^validation_failed: .*owner/,
    );
  });

  it("not_configured for semantic and hybrid search", async () => {
    await expectError("search", { query: "x", mode: "semantic" }, /^not_configured: /);
    await expectError("search", { query: "x", mode: "hybrid" }, /^not_configured: /);
  });

  it("artifact writes are not registered on a KB without allow_artifact_write", async () => {
    const plain = await surfaceKb({ profile: "full" });
    try {
      const r = await plain.call("artifact_write", { path: "a.txt", content: "x" });
      expect(r.isError).toBe(true);
      // Not registered for this KB (enabledFor): the surface answers as for any unknown tool;
      // the handler's own not_configured is covered by test/tools/families/assets.test.ts.
      expect(textOf(r)).toBe("tool not found: artifact_write");
    } finally {
      await plain.cleanup();
    }
  });
});
