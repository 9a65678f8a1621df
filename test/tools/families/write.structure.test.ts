import { mkdir, writeFile } from "node:fs/promises";
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
const move = tool(writeTools, "concept_move");

let kb: TempKb;
beforeAll(async () => {
  kb = await makeTempKb();
});
afterAll(async () => kb.cleanup());

async function seed(id: string, body: string) {
  await callTool(kb.runtime, write, { id, frontmatter: { type: "note" }, body });
}

describe("concept_expand", () => {
  it("turns <id>.md into <id>/index.md in one commit, keeping the id", async () => {
    await seed("topics/big", "Big topic.\n");
    const before = commitCount(kb.root);
    const result = (await callTool(kb.runtime, tool(writeTools, "concept_expand"), {
      id: "topics/big",
    })) as Record<string, unknown>;
    expect(result.path).toBe("data/topics/big/index.md");
    expect(commitCount(kb.root)).toBe(before + 1);
    expect((await kb.runtime.store.readConcept("topics/big")).expanded).toBe(true);
    await expectKbError(
      () => callTool(kb.runtime, tool(writeTools, "concept_expand"), { id: "topics/big" }),
      "already_exists",
    );
  });
});

describe("expanded_ambiguous", () => {
  it("a concept present as both <id>.md and <id>/index.md refuses writes", async () => {
    await seed("topics/twin", "flat\n");
    await mkdir(join(kb.root, "data/topics/twin"), { recursive: true });
    await writeFile(join(kb.root, "data/topics/twin/index.md"), "---\ntype: note\n---\nexpanded\n");
    await expectKbError(
      () =>
        callTool(kb.runtime, write, {
          id: "topics/twin",
          frontmatter: { type: "note" },
          body: "x",
        }),
      "expanded_ambiguous",
    );
    await expectKbError(
      () =>
        callTool(kb.runtime, tool(writeTools, "concept_patch"), {
          id: "topics/twin",
          old_string: "flat",
          new_string: "x",
        }),
      "expanded_ambiguous",
    );
  });
});

describe("concept_move", () => {
  it("moves one concept, rewriting links by default, in one commit", async () => {
    await seed("topics/src", "Source.\n");
    await seed("topics/linker", "See [[topics/src]].\n");
    const before = commitCount(kb.root);
    await callTool(kb.runtime, move, { from: "topics/src", to: "topics/dst" });
    expect(commitCount(kb.root)).toBe(before + 1);
    expect(headSubject(kb.root)).toMatch(/^concept_move: /);
    expect(await kb.runtime.store.tryReadConcept("topics/src")).toBeNull();
    expect((await kb.runtime.store.readConcept("topics/linker")).body).toContain("[[topics/dst]]");
  });

  it("rewrite_links false leaves links alone", async () => {
    await seed("topics/m1", "m1\n");
    await seed("topics/l1", "See [[topics/m1]].\n");
    await callTool(kb.runtime, move, { from: "topics/m1", to: "topics/m1b", rewrite_links: false });
    expect((await kb.runtime.store.readConcept("topics/l1")).body).toContain("[[topics/m1]]");
  });

  it("validates the whole batch before moving anything", async () => {
    await seed("topics/b1", "b1\n");
    await seed("topics/b2", "b2\n");
    const before = commitCount(kb.root);
    await expectKbError(
      () =>
        callTool(kb.runtime, move, {
          moves: [
            { from: "topics/b1", to: "topics/b1-new" },
            { from: "topics/missing", to: "topics/x" },
          ],
        }),
      "not_found",
    );
    expect(commitCount(kb.root)).toBe(before);
    expect(await kb.runtime.store.tryReadConcept("topics/b1")).not.toBeNull();
    await callTool(kb.runtime, move, {
      moves: [
        { from: "topics/b1", to: "other/b1" },
        { from: "topics/b2", to: "other/b2" },
      ],
    });
    expect(commitCount(kb.root)).toBe(before + 1);
    expect(await kb.runtime.store.tryReadConcept("other/b2")).not.toBeNull();
  });

  it("refuses mixed or empty forms", async () => {
    await expectKbError(() => callTool(kb.runtime, move, {}), "invalid_argument");
    await expectKbError(
      () => callTool(kb.runtime, move, { from: "a", to: "b", moves: [{ from: "c", to: "d" }] }),
      "invalid_argument",
    );
    await expectKbError(
      () => callTool(kb.runtime, move, { from: "topics/linker" }),
      "invalid_argument",
    );
  });
});

describe("supersede", () => {
  const supersede = tool(writeTools, "supersede");
  it("marks the old concept, links the successor, one commit; repeating changes nothing", async () => {
    await seed("topics/old", "Old way.\n");
    await seed("topics/new", "New way.\n");
    const before = commitCount(kb.root);
    await callTool(kb.runtime, supersede, { id: "topics/old", by: "topics/new", reason: "faster" });
    expect(commitCount(kb.root)).toBe(before + 1);
    expect(headSubject(kb.root)).toBe("supersede: topics/old");
    const doc = await kb.runtime.store.readConcept("topics/old");
    expect(doc.frontmatter).toMatchObject({ status: "superseded", superseded_by: "topics/new" });
    expect(doc.body).toContain("[[topics/new]]: faster");
    const again = (await callTool(kb.runtime, supersede, {
      id: "topics/old",
      by: "topics/new",
    })) as Record<string, unknown>;
    expect(again.unchanged).toBe(true);
    expect(commitCount(kb.root)).toBe(before + 1);
  });
  it("refuses a missing successor and self-supersession", async () => {
    await expectKbError(
      () => callTool(kb.runtime, supersede, { id: "topics/new", by: "topics/none" }),
      "not_found",
    );
    await expectKbError(
      () => callTool(kb.runtime, supersede, { id: "topics/new", by: "topics/new" }),
      "invalid_argument",
    );
  });
});
