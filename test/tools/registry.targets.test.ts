import { describe, expect, it } from "vitest";
import { allTools } from "../../src/tools/registry.js";
import type { ToolSpec } from "../../src/tools/spec.js";

function spec(name: string): ToolSpec {
  const found = allTools().find((t) => t.name === name);
  if (!found) throw new Error(`missing ${name}`);
  return found;
}

describe("targets name every concept a write touches", () => {
  it("exact writes carry proposedType from frontmatter.type", () => {
    expect(
      spec("concept_write").targets?.({ id: "a/b", frontmatter: { type: "note" }, body: "" }),
    ).toEqual([{ id: "a/b", proposedType: "note", write: true }]);
    expect(
      spec("concept_patch").targets?.({ id: "a/b", old_string: "x", new_string: "y" }),
    ).toEqual([{ id: "a/b", write: true }]);
    expect(spec("concept_delete").targets?.({ id: "a/b" })).toEqual([{ id: "a/b", write: true }]);
  });
  it("moves name both ends of every move", () => {
    const move = spec("concept_move");
    expect(move.targets?.({ from: "a/x", to: "b/x" })).toEqual([
      { id: "a/x", write: true },
      { id: "b/x", write: true },
    ]);
    expect(
      move.targets?.({
        moves: [
          { from: "a/1", to: "b/1" },
          { from: "a/2", to: "b/2" },
        ],
      }),
    ).toHaveLength(4);
  });
  it("link rewriting needs the whole KB; opting out does not", () => {
    const move = spec("concept_move");
    expect(move.requiresWholeKb?.({ from: "a", to: "b" })).toBe(true);
    expect(move.requiresWholeKb?.({ from: "a", to: "b", rewrite_links: true })).toBe(true);
    expect(move.requiresWholeKb?.({ from: "a", to: "b", rewrite_links: false })).toBe(false);
  });
  it("batch targets every operation with its proposed type", () => {
    const targets = spec("concept_batch").targets?.({
      operations: [
        { op: "write", id: "a/1", frontmatter: { type: "note" }, body: "" },
        { op: "patch", id: "a/2", frontmatter: { type: "service" } },
        { op: "delete", id: "a/3" },
      ],
    });
    expect(targets).toEqual([
      { id: "a/1", proposedType: "note", write: true },
      { id: "a/2", proposedType: "service", write: true },
      { id: "a/3", write: true },
    ]);
  });
  it("the root index needs the whole KB; a map index targets the map", () => {
    const patch = spec("index_patch");
    expect(patch.requiresWholeKb?.({ append: "x" })).toBe(true);
    expect(patch.targets?.({ append: "x" })).toEqual([]);
    expect(patch.requiresWholeKb?.({ scope: "infra", append: "x" })).toBe(false);
    expect(patch.targets?.({ scope: "infra", append: "x" })).toEqual([
      { id: "infra", write: true },
    ]);
  });
  it("supersede writes id and reads by; assets target their data/-relative path", () => {
    expect(spec("supersede").targets?.({ id: "a/old", by: "a/new" })).toEqual([
      { id: "a/old", write: true },
      { id: "a/new", write: false },
    ]);
    expect(spec("asset_write").targets?.({ path: "data/infra/d.png", content_base64: "" })).toEqual(
      [{ id: "infra/d.png", write: true }],
    );
    expect(spec("asset_read").targets?.({ path: "infra/d.png" })).toEqual([
      { id: "infra/d.png", write: false },
    ]);
  });
  it("hints: deletes are destructive, read-only tools never are", () => {
    for (const name of ["concept_delete", "map_delete", "asset_delete", "artifact_delete"]) {
      expect(spec(name).destructive, name).toBe(true);
    }
    for (const t of allTools()) if (t.readOnly) expect(t.destructive, t.name).toBeFalsy();
  });
});
