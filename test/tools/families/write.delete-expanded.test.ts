/**
 * concept_delete on expanded and ambiguous concepts: never orphans satellites (not_empty unless
 * recursive), deletes a whole folder in one commit, and resolves an expanded_ambiguous id by
 * deleting exactly one variant.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { writeTools } from "../../../src/tools/families/write.js";
import { allTools } from "../../../src/tools/registry.js";
import { callTool } from "../../support/call-tool.js";
import {
  commitCount,
  expectKbError,
  headSubject,
  makeTempKb,
  type TempKb,
  tool,
} from "../../support/tool-kb.js";

const del = tool(writeTools, "concept_delete");
const note = (title: string) => `---\ntype: note\ntitle: ${title}\n---\n${title}\n`;

let kb: TempKb;
beforeEach(async () => {
  const files: Record<string, string> = {
    "data/topics/big/index.md": note("Big"),
    "data/topics/big/part-a.md": note("A"),
    "data/topics/big/deep/part-b.md": note("B"),
    "data/topics/big/diagram.png": "PNG",
    "data/topics/twin.md": note("Twin flat"),
    "data/topics/twin/index.md": note("Twin expanded"),
    "data/topics/plain.md": note("Plain"),
  };
  for (let i = 0; i < 23; i++)
    files[`data/topics/many/s${String(i).padStart(2, "0")}.md`] = note(`S${i}`);
  files["data/topics/many/index.md"] = note("Many");
  kb = await makeTempKb({ files });
});
afterEach(async () => kb.cleanup());

describe("concept_delete on an expanded concept", () => {
  it("refuses with not_empty naming the satellites, and deletes nothing", async () => {
    const before = commitCount(kb.root);
    const err = await expectKbError(
      () => callTool(kb.runtime, del, { id: "topics/big" }),
      "not_empty",
    );
    expect(err.message).toContain("data/topics/big/part-a.md");
    expect(err.message).toContain("data/topics/big/deep/part-b.md");
    expect(err.message).toContain("data/topics/big/diagram.png");
    expect(err.message).toMatch(/move or delete them first/);
    expect(err.message).toContain("recursive");
    expect(existsSync(join(kb.root, "data/topics/big/index.md"))).toBe(true);
    expect(commitCount(kb.root)).toBe(before);
  });

  it("names at most 20 satellites, then +N more", async () => {
    const err = await expectKbError(
      () => callTool(kb.runtime, del, { id: "topics/many" }),
      "not_empty",
    );
    expect(err.message).toContain("s19.md");
    expect(err.message).not.toContain("s20.md");
    expect(err.message).toContain("+3 more");
  });

  it("recursive: true deletes the whole folder (satellites and assets) in one commit", async () => {
    const before = commitCount(kb.root);
    const result = (await callTool(kb.runtime, del, { id: "topics/big", recursive: true })) as {
      deleted: boolean;
      paths: string[];
    };
    expect(result.deleted).toBe(true);
    expect(result.paths).toHaveLength(4);
    expect(existsSync(join(kb.root, "data/topics/big"))).toBe(false);
    expect(commitCount(kb.root)).toBe(before + 1);
    expect(headSubject(kb.root)).toBe("concept_delete: topics/big");
    expect(await kb.runtime.store.tryReadConcept("topics/big/part-a")).toBeNull();
    const hits = kb.runtime.index.search({ query: "B", limit: 10, visibility: { all: true } });
    expect(hits.results.map((h) => h.id)).not.toContain("topics/big/deep/part-b");
  });

  it("a flat concept still deletes without recursive", async () => {
    await callTool(kb.runtime, del, { id: "topics/plain" });
    expect(existsSync(join(kb.root, "data/topics/plain.md"))).toBe(false);
  });

  it("authorization targets every satellite when recursive", async () => {
    const spec = allTools().find((t) => t.name === "concept_delete");
    expect(spec?.targets?.({ id: "topics/big" })).toEqual([{ id: "topics/big", write: true }]);
    const extra = await spec?.storeTargets?.(
      { id: "topics/big", recursive: true },
      kb.runtime.store,
    );
    expect(extra).toEqual([
      { id: "topics/big/deep/part-b", write: true },
      { id: "topics/big/diagram.png", write: true },
      { id: "topics/big/part-a", write: true },
    ]);
    expect(await spec?.storeTargets?.({ id: "topics/big" }, kb.runtime.store)).toEqual([]);
  });
});

describe("concept_delete on an expanded_ambiguous id", () => {
  it("every write refuses, naming concept_delete's variant as the way out", async () => {
    const err = await expectKbError(
      () => callTool(kb.runtime, del, { id: "topics/twin" }),
      "expanded_ambiguous",
    );
    expect(err.message).toContain('variant: "flat"');
  });

  it("variant flat deletes exactly <id>.md", async () => {
    await callTool(kb.runtime, del, { id: "topics/twin", variant: "flat" });
    expect(existsSync(join(kb.root, "data/topics/twin.md"))).toBe(false);
    expect(existsSync(join(kb.root, "data/topics/twin/index.md"))).toBe(true);
    expect((await kb.runtime.store.readConcept("topics/twin")).title).toBe("Twin expanded");
  });

  it("variant expanded deletes exactly <id>/index.md", async () => {
    await callTool(kb.runtime, del, { id: "topics/twin", variant: "expanded" });
    expect(existsSync(join(kb.root, "data/topics/twin.md"))).toBe(true);
    expect(existsSync(join(kb.root, "data/topics/twin/index.md"))).toBe(false);
    expect((await kb.runtime.store.readConcept("topics/twin")).title).toBe("Twin flat");
  });

  it("variant on an unambiguous id is invalid_argument saying why", async () => {
    const err = await expectKbError(
      () => callTool(kb.runtime, del, { id: "topics/plain", variant: "flat" }),
      "invalid_argument",
    );
    expect(err.message).toMatch(/only .*both/);
  });
});
