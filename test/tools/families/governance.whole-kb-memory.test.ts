/**
 * Whole-KB passes hold what they report, not the KB: lint, validate, gate_check,
 * graph_neighbors and contradiction_report stream the concept files a batch at a time
 * (docs/decisions.md "Whole-KB passes stream"). Measured as the live heap (after a full GC,
 * sampled every 10 ms between event-loop turns) above the heap before the call, on a KB whose bodies
 * total ~24 MB: holding every body would cost at least that.
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { governanceTools } from "../../../src/tools/families/governance.js";
import { graphTools } from "../../../src/tools/families/graph.js";
import { callTool } from "../../support/call-tool.js";
import { manyConcepts } from "../../support/many-concepts.js";
import { makeTempKb, type TempKb, tool } from "../../support/tool-kb.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

const CONCEPTS = 3000;
const BODY_BYTES = 8 * 1024;
/** Facts per concept (id, path, placement, links) plus one batch of bodies: well under 24 MB. */
const MAX_LIVE_DELTA_MB = 10;

let kb: TempKb;

beforeAll(async () => {
  kb = await makeTempKb({ files: manyConcepts(CONCEPTS, BODY_BYTES) });
}, 120_000);
afterAll(async () => {
  await kb?.cleanup();
});

/** Peak live heap (MB) above the heap before `run`, sampled after a full GC every 10 ms. */
async function liveHeapDelta(run: () => Promise<unknown>): Promise<number> {
  gc();
  const before = process.memoryUsage().heapUsed;
  let peak = before;
  const sampler = setInterval(() => {
    gc();
    peak = Math.max(peak, process.memoryUsage().heapUsed);
  }, 10);
  try {
    await run();
  } finally {
    clearInterval(sampler);
  }
  gc();
  peak = Math.max(peak, process.memoryUsage().heapUsed);
  return (peak - before) / (1024 * 1024);
}

describe("whole-KB passes keep their live heap bounded (3,000 concepts, ~24 MB of bodies)", () => {
  const governance = (name: string) => tool(governanceTools, name);
  const cases: Array<[string, () => Promise<unknown>]> = [
    ["lint", () => callTool(kb.runtime, governance("lint"), {})],
    ["validate", () => callTool(kb.runtime, governance("validate"), {})],
    ["gate_check", () => callTool(kb.runtime, governance("gate_check"), {})],
    ["contradiction_report", () => callTool(kb.runtime, governance("contradiction_report"), {})],
    [
      "graph_neighbors depth 3",
      () =>
        callTool(kb.runtime, tool(graphTools, "graph_neighbors"), { id: "a/c000000", depth: 3 }),
    ],
  ];
  for (const [name, run] of cases) {
    it(`${name} stays under ${MAX_LIVE_DELTA_MB} MB of live heap`, async () => {
      const result = await run(); // warm: module-level caches, the maps cache, SQLite statements
      expect(result).toBeTruthy();
      const delta = await liveHeapDelta(run);
      expect(delta).toBeLessThan(MAX_LIVE_DELTA_MB);
    });
  }
});
