/** Section `kb`: generate the KB, full index build, warm open of the unchanged KB. */

import path from "node:path";
import { openKb } from "../src/kb/store/store.js";
import { openKbIndex } from "../src/search/kb-index.js";
import { rebuildKbIndex } from "../src/search/rebuild-kb-index.js";
import { openSearchIndex } from "../src/search/sqlite-index.js";
import type { BenchContext } from "./context.js";
import { type Figure, type Section, timed } from "./harness.js";

const WARM_RUNS = 3;

export async function run(ctx: BenchContext): Promise<Section> {
  const kb = await ctx.kb();
  const figures: Figure[] = [
    { name: "generate KB (10,000 concepts, git commit)", value: kb.generateMs / 1000, unit: "s" },
  ];
  const store = await ctx.store();
  const total = (await store.scanConceptFiles()).length;

  ctx.log(
    "full index build (rebuildKbIndex: read every concept through the store, index, one transaction)",
  );
  const build = await timed(() => rebuildKbIndex(store));
  figures.push({
    name: `full index build (${total} concepts)`,
    value: total / (build.ms / 1000),
    unit: "concepts/s",
    target: { on: "value", op: ">=", value: 2000 },
    note: `${(build.ms / 1000).toFixed(2)} s`,
  });

  // Where the build time goes: reading through the store vs inserting into the index.
  const listed = await timed(() => store.listConcepts());
  figures.push({
    name: "  of which: read all concepts (store.listConcepts)",
    value: listed.ms / 1000,
    unit: "s",
  });
  const scratch = openSearchIndex(path.join(ctx.tmpRoot, "insert-only.db"));
  const insert = await timed(() => scratch.replaceAll(listed.result.map((doc) => ({ doc }))));
  scratch.close();
  figures.push({
    name: "  of which: index insert only (docs in memory)",
    value: listed.result.length / (insert.ms / 1000),
    unit: "concepts/s",
    note: `${(insert.ms / 1000).toFixed(2)} s`,
  });

  ctx.log(`warm open of the unchanged KB (openKb + openKbIndex), median of ${WARM_RUNS}`);
  const warm: number[] = [];
  let reread = 0;
  for (let i = 0; i < WARM_RUNS; i++) {
    const { ms, result } = await timed(async () =>
      openKbIndex(await openKb(ctx.settings(kb.root))),
    );
    reread = total - result.stats.unchanged;
    result.index.close();
    warm.push(ms);
  }
  warm.sort((a, b) => a - b);
  figures.push({
    name: "warm open, unchanged KB (median)",
    value: (warm[Math.floor(WARM_RUNS / 2)] as number) / 1000,
    unit: "s",
    target: { on: "value", op: "<=", value: 1.5 },
    note: `concepts not skipped by stat: ${reread}`,
  });
  return { name: "kb", figures };
}
