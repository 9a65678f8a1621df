/**
 * Section `startup` (docs/benchmarks.md "Startup and scale"): the path a user hits, on the
 * 10,000-concept KB over stdio with the built binary — spawn → initialize answer and spawn → first
 * search answered, on a fresh KB (no index: a clone, a Go KB, after `reindex`) and warm (index
 * present), each beside the bare SDK stdio server (bench/bare-stdio-server.mjs) started the same
 * way. Median of 3 processes.
 */
import fs from "node:fs/promises";
import path from "node:path";
import { median, Served } from "./child.js";
import type { BenchContext } from "./context.js";
import type { Figure, Section } from "./harness.js";

const RUNS = 3;

async function bareInit(cwd: string): Promise<number> {
  const bare = Served.start("bare", cwd);
  try {
    return await bare.initialize();
  } finally {
    await bare.stop();
  }
}

/** spawn → initialize, spawn → first search answer, spawn → first complete search answer. */
async function served(root: string, cwd: string) {
  const s = Served.start(["--kb", root], cwd);
  try {
    const init = await s.initialize();
    const first = await s.call("search", { query: "gateway" });
    const firstMs = performance.now() - s.spawnedAt;
    let complete = first;
    while (complete.index !== undefined) complete = await s.call("search", { query: "gateway" });
    const completeMs = performance.now() - s.spawnedAt;
    return { init, firstMs, completeMs, partial: first.index !== undefined, rss: s.peakRssMb() };
  } finally {
    await s.stop();
  }
}

export async function run(ctx: BenchContext): Promise<Section> {
  const kb = await ctx.kb();
  const indexDir = path.join(kb.root, ".cartographer");
  ctx.log("startup: bare SDK stdio server");
  const bare = await median(RUNS, () => bareInit(ctx.tmpRoot));
  ctx.log("startup: fresh KB (index removed before each start)");
  const fresh: Array<Awaited<ReturnType<typeof served>>> = [];
  for (let i = 0; i < RUNS; i++) {
    await fs.rm(indexDir, { recursive: true, force: true });
    fresh.push(await served(kb.root, ctx.tmpRoot));
  }
  ctx.log("startup: warm KB");
  const warm: Array<Awaited<ReturnType<typeof served>>> = [];
  for (let i = 0; i < RUNS; i++) warm.push(await served(kb.root, ctx.tmpRoot));
  const mid = <T>(xs: T[], f: (x: T) => number) =>
    xs.map(f).sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
  const figures: Figure[] = [
    { name: "bare SDK stdio spawn to initialize", value: bare, unit: "ms" },
    {
      name: "fresh 10k: spawn to initialize",
      value: mid(fresh, (r) => r.init),
      unit: "ms",
      baseline: "bare SDK stdio spawn to initialize",
      target: { on: "ratio", op: "<=", value: 1.5 },
    },
    {
      name: "fresh 10k: spawn to first search answer",
      value: mid(fresh, (r) => r.firstMs),
      unit: "ms",
      note: fresh.some((r) => r.partial)
        ? "answered from a partial index (index.state building) in some run"
        : "complete answer: the search waited for the build",
    },
    {
      name: "fresh 10k: spawn to first complete search (build included)",
      value: mid(fresh, (r) => r.completeMs),
      unit: "ms",
      target: { on: "value", op: "<=", value: 3000 },
    },
    { name: "fresh 10k: server peak RSS", value: mid(fresh, (r) => r.rss), unit: "MB" },
    {
      name: "warm 10k: spawn to initialize",
      value: mid(warm, (r) => r.init),
      unit: "ms",
      baseline: "bare SDK stdio spawn to initialize",
      target: { on: "ratio", op: "<=", value: 1.3 },
    },
    {
      name: "warm 10k: spawn to first complete search",
      value: mid(warm, (r) => r.completeMs),
      unit: "ms",
    },
    { name: "warm 10k: server peak RSS", value: mid(warm, (r) => r.rss), unit: "MB" },
  ];
  return { name: "startup", figures };
}
