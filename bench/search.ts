/** Section `search`: keyword search p50/p95, unfiltered and under a one-map-of-eight visibility. */
import type { Visibility } from "../src/kb/core/types.js";
import { VISIBLE_ALL } from "../src/kb/core/types.js";
import type { BenchContext } from "./context.js";
import { type Section, summarize } from "./harness.js";
import { HIT_QUERIES } from "./queries.js";

/** The shared hits plus a miss that falls back, a short term and a quoted phrase. */
const FIXED_QUERIES = [
  ...HIT_QUERIES,
  "vault token",
  "10.",
  "kubernetes cluster",
  '"shared bucket"',
];
const ITERATIONS = 12;
const LIMIT = 10;

export async function run(ctx: BenchContext): Promise<Section> {
  const kb = await ctx.kb();
  const index = await ctx.kbIndex();
  // A few title words of generated concepts, so some queries hit rare words too.
  const titled = [17, 1234, 4321, 8765].map((i) => (kb.concepts[i]?.title ?? "").toLowerCase());
  const queries = [...FIXED_QUERIES, ...titled];
  const narrow: Visibility = {
    all: false,
    rules: [{ maps: [kb.maps[0] as string], journals: [], types: [] }],
  };

  ctx.log(
    `search: ${queries.length} queries × ${ITERATIONS}, unfiltered and filtered, interleaved`,
  );
  const plain: number[] = [];
  const filtered: number[] = [];
  let empty = 0;
  for (let i = 0; i < ITERATIONS + 2; i++) {
    for (const query of queries) {
      let start = performance.now();
      const r = index.search({ query, limit: LIMIT, visibility: VISIBLE_ALL });
      const a = performance.now() - start;
      start = performance.now();
      index.search({ query, limit: LIMIT, visibility: narrow });
      const b = performance.now() - start;
      if (i < 2) continue; // warm-up rounds
      plain.push(a);
      filtered.push(b);
      if (i === 2 && r.results.length === 0) empty++;
    }
  }
  const p = summarize(plain);
  const f = summarize(filtered);
  return {
    name: "search",
    figures: [
      {
        name: "keyword search p50",
        value: p.p50,
        unit: "ms",
        target: { on: "value", op: "<=", value: 5 },
      },
      {
        name: "keyword search p95",
        value: p.p95,
        unit: "ms",
        note: `${empty} queries without hits`,
      },
      { name: "keyword search p99", value: p.p99, unit: "ms" },
      {
        name: "search p50, 1 map of 8 visible",
        value: f.p50,
        unit: "ms",
        baseline: "keyword search p50",
        target: { on: "ratio", op: "<=", value: 1.5 },
      },
      {
        name: "search p95, 1 map of 8 visible",
        value: f.p95,
        unit: "ms",
        baseline: "keyword search p95",
      },
    ],
  };
}
