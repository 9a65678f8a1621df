/**
 * Search and concept_list against a real KB (git + store + SQLite index): answers come from the
 * index alone, and never name a concept whose file is gone at answer time (docs/decisions.md
 * "Search and `concept_list` stat each answered hit's file").
 */
import { existsSync } from "node:fs";
import { rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { VISIBLE_ALL } from "../../../src/kb/core/types.js";
import { writeTools } from "../../../src/tools/families/write.js";
import { callTool } from "../../support/call-tool.js";
import { makeTempKb, type TempKb, tool } from "../../support/tool-kb.js";

let kb: TempKb | null = null;
afterEach(async () => {
  await kb?.cleanup();
  kb = null;
});

const note = (title: string, body: string) => `---\ntype: note\ntitle: ${title}\n---\n${body}\n`;
const search = (k: TempKb, query: string) =>
  k.runtime.index.search({ query, limit: 10, visibility: VISIBLE_ALL });
const ids = (k: TempKb, query: string) => search(k, query).results.map((h) => h.id);

describe("search answers from the index, never from the files", () => {
  it("the substring fallback sees the indexed text, not a file edited behind the index", async () => {
    kb = await makeTempKb({ files: { "data/ops/a.md": note("A", "plain words only") } });
    await writeFile(join(kb.root, "data/ops/a.md"), note("A", "now with qxzfragmentq inside"));
    // Reading files would find the fragment; the index has not seen the edit yet.
    expect(search(kb, "xzfragment")).toEqual({ results: [], match: "none" });
    expect(ids(kb, "plain words")).toEqual(["ops/a"]);
  });
});

describe("search and concept_list never name a concept whose file is gone", () => {
  it("drops a concept deleted behind the index, and a moved one under its old id", async () => {
    kb = await makeTempKb({
      files: {
        "data/ops/gone.md": note("Gone", "shared keyword alpha"),
        "data/ops/moved.md": note("Moved", "shared keyword beta"),
        "data/ops/kept.md": note("Kept", "shared keyword gamma"),
      },
    });
    await rm(join(kb.root, "data/ops/gone.md"));
    await rename(join(kb.root, "data/ops/moved.md"), join(kb.root, "data/ops/renamed.md"));
    expect(ids(kb, "shared keyword")).toEqual(["ops/kept"]);
    expect(ids(kb, "eyword")).toEqual(["ops/kept"]); // the substring fallback too
    const list = kb.runtime.index.list({ prefix: "ops", limit: 10, visibility: VISIBLE_ALL });
    expect(list.items.map((i) => i.id)).toEqual(["ops/kept"]);
    expect(list).toMatchObject({ total: 1, truncated: false });
    // A full page stays full: the vanished rows are skipped, the next live one takes their place.
    const one = kb.runtime.index.list({ prefix: "ops", limit: 1, visibility: VISIBLE_ALL });
    expect(one.items.map((i) => i.id)).toEqual(["ops/kept"]);
    const first = kb.runtime.index.search({
      query: "shared",
      limit: 1,
      visibility: VISIBLE_ALL,
    });
    expect(first.results.map((h) => h.id)).toEqual(["ops/kept"]);
  });

  it("a concept moved back and forth never shows under both ids while searches run", async () => {
    kb = await makeTempKb({
      files: { "data/ops/zeta.md": note("Traveller", "wandering concept text") },
    });
    const k = kb;
    const move = tool(writeTools, "concept_move");
    let stop = false;
    let answers = 0;
    const searcher = (async () => {
      while (!stop) {
        const found = ids(k, "wandering");
        answers++;
        expect(found.length, JSON.stringify(found)).toBeLessThanOrEqual(1);
        // Yield to the moves' I/O, but check often.
        await new Promise((r) => setImmediate(r));
      }
    })();
    // `ops/alpha` sorts before `ops/zeta`: moving back to it re-indexes the new id first.
    for (let i = 0; i < 12; i++) {
      const [from, to] = i % 2 === 0 ? ["ops/zeta", "ops/alpha"] : ["ops/alpha", "ops/zeta"];
      await callTool(k.runtime, move, { from, to }); // the pipeline takes the KB lock
    }
    stop = true;
    await searcher;
    expect(answers).toBeGreaterThan(12);
    expect(ids(k, "wandering")).toEqual(["ops/zeta"]);
    expect(existsSync(join(k.root, "data/ops/zeta.md"))).toBe(true);
  });
});
