import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Visibility } from "../../../src/kb/core/types.js";
import { graphTools } from "../../../src/tools/families/graph.js";
import { readTools } from "../../../src/tools/families/read.js";
import { callTool } from "../../support/call-tool.js";
import {
  callHandlerDirectly,
  expectKbError,
  makeTempKb,
  type TempKb,
  tool,
} from "../../support/tool-kb.js";

const note = (body: string) => `---\ntype: note\n---\n${body}\n`;
const VIS_A: Visibility = { all: false, rules: [{ maps: ["a"], journals: [], types: [] }] };

// a/one → a/two → a/three → a/four ; a/one → b/hidden → a/four ; a/five → a/one (markdown link)
let kb: TempKb;
const spec = tool(graphTools, "graph_neighbors");
const call = (args: Record<string, unknown>, visibility?: Visibility) =>
  // biome-ignore lint/suspicious/noExplicitAny: tool results are plain JSON, checked field by field
  callTool(kb.runtime, spec, args, { visibility }) as Promise<any>;
// A narrow principal's walk deeper than one hop is refused by the pipeline (whole-KB rule); the
// handler's own filtering, its second guard, is checked by running it directly.
const callHandler = (args: Record<string, unknown>, visibility: Visibility) =>
  // biome-ignore lint/suspicious/noExplicitAny: tool results are plain JSON, checked field by field
  callHandlerDirectly(kb.runtime, spec, args, { visibility }) as Promise<any>;
const pairs = (r: { neighbors: Array<{ id: string; distance: number }> }) =>
  r.neighbors.map((n) => `${n.id}@${n.distance}`);

beforeAll(async () => {
  kb = await makeTempKb({
    files: {
      "data/a/_map.md": "---\ntype: Map\nkind: map\n---\n",
      "data/b/_map.md": "---\ntype: Map\nkind: map\n---\n",
      "data/a/one.md": note("[[a/two]] and [[b/hidden|the hidden one]]"),
      "data/a/two.md": note("[[a/three#Intro]]"),
      "data/a/three.md": note("[[a/four]]"),
      "data/a/four.md": note("end"),
      "data/a/five.md": note("[one](one.md)"),
      "data/b/hidden.md": note("[[a/four]]"),
    },
  });
});
afterAll(async () => kb.cleanup());

describe("graph_neighbors", () => {
  it("out at depth 1 lists direct link targets", async () => {
    expect(pairs(await call({ id: "a/one", direction: "out" }))).toEqual(["a/two@1", "b/hidden@1"]);
  });

  it("in lists concepts linking here, including relative Markdown links", async () => {
    expect(pairs(await call({ id: "a/one", direction: "in" }))).toEqual(["a/five@1"]);
  });

  it("both with depth gives minimum distances (a shorter path wins)", async () => {
    const r = await call({ id: "a/one", direction: "out", depth: 3 });
    // a/four is 2 away through b/hidden, 3 away through a/two → a/three.
    expect(pairs(r)).toEqual(["a/two@1", "b/hidden@1", "a/four@2", "a/three@2"]);
    const both = await call({ id: "a/two" });
    expect(both.neighbors).toEqual([
      { id: "a/one", distance: 1, title: null, type: "note", link: "in" },
      { id: "a/three", distance: 1, title: null, type: "note", link: "out" },
    ]);
  });

  it("a hidden concept is never listed and never bridges visible ones", async () => {
    const r = await callHandler({ id: "a/one", direction: "out", depth: 2 }, VIS_A);
    expect(pairs(r)).toEqual(["a/two@1", "a/three@2"]);
    expect(JSON.stringify(r)).not.toContain("hidden");
  });

  it("a hidden start answers exactly like a missing one", async () => {
    const hidden = await expectKbError(() => call({ id: "b/hidden" }, VIS_A), "not_found");
    const missing = await expectKbError(() => call({ id: "b/none" }, VIS_A), "not_found");
    expect(hidden.message.replaceAll("hidden", "X")).toBe(missing.message.replaceAll("none", "X"));
    const read = await expectKbError(
      () => callTool(kb.runtime, tool(readTools, "concept_read"), { id: "b/none" }),
      "not_found",
    );
    expect(read.message).toBe(missing.message);
  });

  it("depth is capped at 3 and needs whole-KB access above 1", async () => {
    await expectKbError(() => call({ id: "a/one", depth: 4 }), "invalid_argument");
    expect(spec.requiresWholeKb?.({ id: "a/one", depth: 2 })).toBe(true);
    expect(spec.requiresWholeKb?.({ id: "a/one" })).toBe(false);
    expect(spec.requiresWholeKb?.({ id: "a/one", depth: 1 })).toBe(false);
  });
});
