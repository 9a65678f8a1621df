import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeTools } from "../../../src/tools/families/write.js";
import { callTool } from "../../support/call-tool.js";
import {
  commitCount,
  expectKbError,
  headSubject,
  makeTempKb,
  type TempKb,
  tool,
} from "../../support/tool-kb.js";

const write = tool(writeTools, "concept_write");
const patch = tool(writeTools, "concept_patch");
const del = tool(writeTools, "concept_delete");

let kb: TempKb;
beforeAll(async () => {
  kb = await makeTempKb();
});
afterAll(async () => kb.cleanup());

async function seed(id: string, body: string, extra: Record<string, unknown> = {}) {
  return (await callTool(kb.runtime, write, {
    id,
    frontmatter: { type: "note", title: id, ...extra },
    body,
  })) as {
    hash: string;
  };
}

describe("concept_write", () => {
  it("creates a concept in exactly one commit named after the tool and id, and indexes it", async () => {
    const before = commitCount(kb.root);
    const result = (await callTool(kb.runtime, write, {
      id: "notes/alpha",
      frontmatter: { type: "note", title: "Alpha" },
      body: "Alpha talks about zebras.\n",
    })) as Record<string, unknown>;
    expect(result).toMatchObject({ id: "notes/alpha", created: true });
    expect(typeof result.hash).toBe("string");
    expect(commitCount(kb.root)).toBe(before + 1);
    expect(headSubject(kb.root)).toBe("concept_write: notes/alpha");
    const hits = kb.runtime.index.search({ query: "zebras", limit: 5, visibility: { all: true } });
    expect(hits.results.map((h) => h.id)).toContain("notes/alpha");
  });

  it("replaces with a matching if_match and refuses a stale one without committing", async () => {
    const { hash } = await seed("notes/beta", "v1\n");
    const replaced = (await callTool(kb.runtime, write, {
      id: "notes/beta",
      frontmatter: { type: "note" },
      body: "v2\n",
      if_match: hash,
    })) as Record<string, unknown>;
    expect(replaced.created).toBe(false);
    const before = commitCount(kb.root);
    await expectKbError(
      () =>
        callTool(kb.runtime, write, {
          id: "notes/beta",
          frontmatter: { type: "note" },
          body: "v3",
          if_match: hash,
        }),
      "stale_write",
    );
    expect(commitCount(kb.root)).toBe(before);
    expect(await readFile(join(kb.root, "data/notes/beta.md"), "utf8")).toContain("v2");
  });

  it("refuses bad ids, missing type and bad argument types", async () => {
    await expectKbError(
      () => callTool(kb.runtime, write, { id: "Bad/ID", frontmatter: { type: "n" }, body: "" }),
      "invalid_id",
    );
    await expectKbError(
      () => callTool(kb.runtime, write, { id: "a/b/c/d", frontmatter: { type: "n" }, body: "" }),
      "invalid_id",
    );
    const noType = await expectKbError(
      () =>
        callTool(kb.runtime, write, { id: "notes/untyped", frontmatter: { title: "x" }, body: "" }),
      "invalid_frontmatter",
    );
    expect(noType.message).toContain("type");
    const badArg = await expectKbError(
      () => callTool(kb.runtime, write, { id: "notes/x", frontmatter: {}, body: 3 }),
      "invalid_argument",
    );
    expect(badArg.message).toContain("'body'");
  });
});

describe("concept_patch", () => {
  it("applies a single edit in one commit", async () => {
    await seed("notes/p1", "one two three\n");
    const before = commitCount(kb.root);
    await callTool(kb.runtime, patch, { id: "notes/p1", old_string: "two", new_string: "2" });
    expect(commitCount(kb.root)).toBe(before + 1);
    expect(headSubject(kb.root)).toBe("concept_patch: notes/p1");
    expect((await kb.runtime.store.readConcept("notes/p1")).body).toContain("one 2 three");
  });

  it("applies ordered edits atomically and names the failing edit", async () => {
    await seed("notes/p2", "a b c\n");
    await callTool(kb.runtime, patch, {
      id: "notes/p2",
      edits: [
        { old_string: "a", new_string: "x" },
        { old_string: "x b", new_string: "y" },
      ],
    });
    expect((await kb.runtime.store.readConcept("notes/p2")).body).toContain("y c");
    const before = commitCount(kb.root);
    const err = await expectKbError(
      () =>
        callTool(kb.runtime, patch, {
          id: "notes/p2",
          edits: [
            { old_string: "y", new_string: "z" },
            { old_string: "missing", new_string: "q" },
          ],
        }),
      "old_string_not_found",
    );
    expect(err.message).toMatch(/edit 2/);
    expect((await kb.runtime.store.readConcept("notes/p2")).body).toContain("y c");
    expect(commitCount(kb.root)).toBe(before);
  });

  it("reports ambiguity unless replace_all", async () => {
    await seed("notes/p3", "dup dup\n");
    await expectKbError(
      () => callTool(kb.runtime, patch, { id: "notes/p3", old_string: "dup", new_string: "x" }),
      "old_string_ambiguous",
    );
    await callTool(kb.runtime, patch, {
      id: "notes/p3",
      old_string: "dup",
      new_string: "x",
      replace_all: true,
    });
    expect((await kb.runtime.store.readConcept("notes/p3")).body).toContain("x x");
  });

  it("merges frontmatter shallowly, null removes a key, type cannot be removed", async () => {
    await seed("notes/p4", "body\n", { status: "draft", owner: "me" });
    await callTool(kb.runtime, patch, {
      id: "notes/p4",
      frontmatter: { status: "done", owner: null, tags: ["a", "b"] },
    });
    const doc = await kb.runtime.store.readConcept("notes/p4");
    expect(doc.frontmatter).toMatchObject({ type: "note", status: "done", tags: ["a", "b"] });
    expect(doc.frontmatter.owner).toBeUndefined();
    const err = await expectKbError(
      () => callTool(kb.runtime, patch, { id: "notes/p4", frontmatter: { type: null } }),
      "invalid_argument",
    );
    expect(err.message).toContain("type");
  });

  it("refuses mixed forms, empty patches, stale hashes and missing concepts", async () => {
    const { hash } = await seed("notes/p5", "text\n");
    await expectKbError(
      () =>
        callTool(kb.runtime, patch, {
          id: "notes/p5",
          old_string: "t",
          new_string: "u",
          edits: [{ old_string: "t", new_string: "u" }],
        }),
      "invalid_argument",
    );
    await expectKbError(() => callTool(kb.runtime, patch, { id: "notes/p5" }), "invalid_argument");
    await expectKbError(
      () => callTool(kb.runtime, patch, { id: "notes/p5", old_string: "t" }),
      "invalid_argument",
    );
    await callTool(kb.runtime, patch, {
      id: "notes/p5",
      old_string: "text",
      new_string: "next",
      if_match: hash,
    });
    await expectKbError(
      () =>
        callTool(kb.runtime, patch, {
          id: "notes/p5",
          old_string: "next",
          new_string: "n",
          if_match: hash,
        }),
      "stale_write",
    );
    await expectKbError(
      () => callTool(kb.runtime, patch, { id: "notes/nope", old_string: "a", new_string: "b" }),
      "not_found",
    );
  });
});

describe("concept_delete", () => {
  it("deletes in one commit and removes it from the index; a missing id is not_found", async () => {
    await seed("notes/gone", "quokka\n");
    const before = commitCount(kb.root);
    await callTool(kb.runtime, del, { id: "notes/gone" });
    expect(commitCount(kb.root)).toBe(before + 1);
    expect(await kb.runtime.store.tryReadConcept("notes/gone")).toBeNull();
    expect(
      kb.runtime.index.search({ query: "quokka", limit: 5, visibility: { all: true } }).results,
    ).toHaveLength(0);
    await expectKbError(() => callTool(kb.runtime, del, { id: "notes/gone" }), "not_found");
  });
  it("refuses a stale if_match", async () => {
    await seed("notes/keep", "x\n");
    await expectKbError(
      () => callTool(kb.runtime, del, { id: "notes/keep", if_match: "0".repeat(64) }),
      "stale_write",
    );
    expect(await kb.runtime.store.tryReadConcept("notes/keep")).not.toBeNull();
  });
});

describe("concept_new", () => {
  it("creates from a template with exactly its variables", async () => {
    await mkdir(join(kb.root, "templates"), { recursive: true });
    await writeFile(
      join(kb.root, "templates/memo.md"),
      "---\ntype: memo\ntitle: {{title}}\n---\n# {{title}}\n",
    );
    const newTool = tool(writeTools, "concept_new");
    const before = commitCount(kb.root);
    await callTool(kb.runtime, newTool, {
      id: "notes/memo1",
      template: "memo",
      variables: { title: "Hello" },
    });
    expect(commitCount(kb.root)).toBe(before + 1);
    const doc = await kb.runtime.store.readConcept("notes/memo1");
    expect(doc.frontmatter).toMatchObject({ type: "memo", title: "Hello" });
    await expectKbError(
      () =>
        callTool(kb.runtime, newTool, {
          id: "notes/memo1",
          template: "memo",
          variables: { title: "x" },
        }),
      "already_exists",
    );
    await expectKbError(
      () => callTool(kb.runtime, newTool, { id: "notes/memo2", template: "nope", variables: {} }),
      "not_found",
    );
    await expectKbError(
      () => callTool(kb.runtime, newTool, { id: "notes/memo3", template: "memo", variables: {} }),
      "invalid_argument",
    );
  });
});
