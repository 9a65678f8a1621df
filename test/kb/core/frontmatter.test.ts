import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isKbError } from "../../../src/common/errors.js";
import { parseDocument, requireType, serializeDocument } from "../../../src/kb/core/frontmatter.js";
import type { Frontmatter } from "../../../src/kb/core/types.js";

describe("frontmatter", () => {
  it("reads the flat subset: scalars, quotes, flow and block lists, comments, blank first line", () => {
    const text = [
      "---",
      "",
      "type: note # trailing comment",
      "# a comment",
      'title: "Quoted: yes"',
      "alt: 'it''s'",
      'tags: [a, "b, c", 3]',
      "owners:",
      "  - alice",
      "  - bob",
      "count: 42",
      "ok: true",
      "empty:",
      "---",
      "Body",
    ].join("\r\n");
    const doc = parseDocument(text);
    expect(doc.hasFrontmatter).toBe(true);
    expect(doc.frontmatter).toEqual({
      type: "note",
      title: "Quoted: yes",
      alt: "it's",
      tags: ["a", "b, c", 3],
      owners: ["alice", "bob"],
      count: 42,
      ok: true,
      empty: null,
    });
    expect(doc.body).toBe("Body");
  });

  it("names the line of a malformed frontmatter", () => {
    for (const [text, line] of [
      ["---\ntype: a\n  nested: x\n---\n", 3],
      ["---\ntype: a\ntags: [a, b\n---\n", 3],
      ["---\ntype: a\ntype: b\n---\n", 3],
      ["---\ntype: a\n", 1],
    ] as const) {
      try {
        parseDocument(text);
        expect.unreachable();
      } catch (e) {
        expect(isKbError(e, "invalid_frontmatter")).toBe(true);
        expect((e as Error).message).toContain(`line ${line}`);
      }
    }
  });

  it("serialization round-trips any flat frontmatter", () => {
    const value = fc.oneof(
      fc.string({ maxLength: 12 }).filter((s) => !/[\r\n\u2028\u2029]/.test(s)),
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.array(
        fc.oneof(
          fc.string({ maxLength: 6 }).filter((s) => !/[\r\n]/.test(s)),
          fc.integer(),
        ),
        { maxLength: 3 },
      ),
    );
    fc.assert(
      fc.property(
        fc.dictionary(fc.stringMatching(/^[a-z][a-z_.]{0,6}$/), value, { maxKeys: 5 }),
        (fm) => {
          const text = serializeDocument(fm as Frontmatter, "body\n");
          const back = parseDocument(text);
          const expected = Object.fromEntries(
            Object.entries(fm).map(([k, v]) => [k, Array.isArray(v) && v.length === 0 ? [] : v]),
          );
          expect(back.frontmatter).toEqual(expected);
          expect(back.body).toBe("body\n");
        },
      ),
    );
  });

  it("keeps existing key order and comments of surviving keys, appends new keys", () => {
    const prev = "---\n# why\ntitle: Old\n# gone\nstale: 1\ntype: note\ntags:\n  - x\n---\nbody\n";
    const out = serializeDocument(
      { type: "note", tags: ["x"], title: "New", added: "yes" },
      "body\n",
      prev,
    );
    expect(out).toBe("---\n# why\ntitle: New\ntype: note\ntags:\n  - x\nadded: yes\n---\nbody\n");
  });

  it("requires a non-empty type", () => {
    expect(() => requireType({ title: "x" })).toThrow(/type/);
    expect(() => requireType({ type: "" })).toThrow(/type/);
    expect(requireType({ type: "note" })).toBe("note");
  });
});
