/**
 * Sections `scale-100k` and `scale-50kbs` (docs/benchmarks.md "Startup and scale"), both against
 * the built binary over stdio:
 * - a generated 100,000-concept KB: full build as served (spawn → "index ready" log line, fresh
 *   index), warm open (spawn → ready with the index present), search p50, peak RSS;
 * - a server with 50 KBs of 2,000 concepts (`serve --data`): every KB ready after start, peak
 *   RSS, and the bytes of the routed tools/list answer.
 * Generation dominates their run time (minutes): `npm run bench -- scale` runs only these.
 */
import fs from "node:fs/promises";
import path from "node:path";
import { median, Served } from "./child.js";
import type { BenchContext } from "./context.js";
import { generateKb } from "./gen-kb.js";
import { type Figure, type Section, summarize } from "./harness.js";

const BIG = 100_000;
const KBS = 50;
const PER_KB = 2_000;
const SEARCHES = 200;
const QUERIES = ["gateway", "backup restore", "firmware upgrade", "resolver", "latency alert"];

async function searchP50(s: Served): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < SEARCHES + 20; i++) {
    const start = performance.now();
    await s.call("search", { query: QUERIES[i % QUERIES.length] });
    if (i >= 20) samples.push(performance.now() - start);
  }
  return summarize(samples).p50;
}

export async function runBig(ctx: BenchContext): Promise<Section> {
  const root = path.join(ctx.tmpRoot, "kb100k");
  ctx.log(`scale: generating ${BIG} concepts under ${root} (minutes)`);
  const genStart = performance.now();
  await generateKb(root, { concepts: BIG, maps: 8, seed: 7 });
  const genMs = performance.now() - genStart;
  ctx.log("scale: full build as served (fresh index)");
  const fresh = Served.start(["--kb", root], ctx.tmpRoot);
  let buildMs: number;
  let freshRss: number;
  let initFresh: number;
  try {
    initFresh = await fresh.initialize();
    buildMs = await fresh.indexesReady(1);
    freshRss = fresh.peakRssMb();
  } finally {
    await fresh.stop();
  }
  ctx.log("scale: warm open and search");
  const warm = Served.start(["--kb", root], ctx.tmpRoot);
  const figures: Figure[] = [];
  try {
    const initWarm = await warm.initialize();
    const readyMs = await warm.indexesReady(1);
    const p50 = await searchP50(warm);
    figures.push(
      {
        name: "100k: spawn to index ready, fresh (full build as served)",
        value: buildMs,
        unit: "ms",
        target: { on: "value", op: "<=", value: 20_000 },
        note: `initialize answered at ${initFresh.toFixed(0)} ms; KB generated in ${(genMs / 1000).toFixed(0)} s`,
      },
      {
        name: "100k: spawn to index ready, warm open",
        value: readyMs,
        unit: "ms",
        target: { on: "value", op: "<=", value: 1000 },
        note: `initialize answered at ${initWarm.toFixed(0)} ms`,
      },
      {
        name: "100k: search p50 over stdio",
        value: p50,
        unit: "ms",
        target: { on: "value", op: "<=", value: 5 },
      },
      {
        name: "100k: server peak RSS (build)",
        value: freshRss,
        unit: "MB",
        target: { on: "value", op: "<=", value: 400 },
      },
      { name: "100k: server peak RSS (warm + searches)", value: warm.peakRssMb(), unit: "MB" },
    );
  } finally {
    await warm.stop();
  }
  // Edited while the server was down: the warm open must find and reindex them (git names them).
  ctx.log(`scale: warm open after ${EDITED} out-of-band edits`);
  const edited = await editConcepts(root, EDITED);
  const after = Served.start(["--kb", root], ctx.tmpRoot);
  try {
    await after.initialize();
    const readyMs = await after.indexesReady(1);
    const found = await after.call("search", { query: edited.marker, limit: EDITED });
    const hits = found.results as unknown[] | undefined;
    figures.push({
      name: `100k: spawn to index ready, warm open after ${EDITED} out-of-band edits`,
      value: readyMs,
      unit: "ms",
      note: `search finds ${hits?.length ?? 0} of the ${EDITED} edited concepts`,
    });
  } finally {
    await after.stop();
  }
  await fs.rm(root, { recursive: true, force: true, maxRetries: 5 });
  return { name: "scale-100k", figures };
}

const EDITED = 100;

/** Appends a marker word to `n` concept files (every 997th), as an editor would. */
async function editConcepts(root: string, n: number): Promise<{ marker: string }> {
  const marker = "outofbandmarker";
  const files: string[] = [];
  for (const entry of await fs.readdir(path.join(root, "data"), { recursive: true }))
    if (entry.endsWith(".md") && !/(^|\/)(index|log|_map)\.md$/.test(entry)) files.push(entry);
  files.sort();
  for (let i = 0; i < n; i++) {
    const file = path.join(root, "data", files[(i * 997) % files.length] as string);
    await fs.appendFile(file, `\n${marker}\n`);
  }
  return { marker };
}

export async function runMany(ctx: BenchContext): Promise<Section> {
  const data = path.join(ctx.tmpRoot, "kbs50");
  ctx.log(`scale: generating ${KBS} KBs of ${PER_KB} concepts under ${data} (minutes)`);
  for (let i = 0; i < KBS; i++)
    await generateKb(path.join(data, `kb${String(i).padStart(2, "0")}`), {
      concepts: PER_KB,
      maps: 4,
      seed: 100 + i,
    });
  // The bare SDK stdio server started the same way, just before (spawn → initialize).
  const bare = await median(3, async () => {
    const b = Served.start("bare", ctx.tmpRoot);
    try {
      return await b.initialize();
    } finally {
      await b.stop();
    }
  });
  const s = Served.start(["--data", data], ctx.tmpRoot);
  const figures: Figure[] = [];
  try {
    const init = await s.initialize();
    const list = await s.client.request("tools/list", {});
    const listBytes = Buffer.byteLength(JSON.stringify(list.result));
    const allReady = await s.indexesReady(KBS);
    const cpu = s.cpuSeconds();
    figures.push(
      { name: "50 KBs: bare SDK stdio spawn to initialize", value: bare, unit: "ms" },
      {
        name: "50 KBs x 2,000: spawn to initialize (fresh)",
        value: init,
        unit: "ms",
        baseline: "50 KBs: bare SDK stdio spawn to initialize",
        target: { on: "value", op: "<=", value: 1000 },
      },
      {
        name: "50 KBs x 2,000: spawn to every index ready",
        value: allReady,
        unit: "ms",
        target: { on: "value", op: "<=", value: 30_000 },
        note: `server CPU ${cpu.toFixed(1)} s in that time (inserts on its main thread, file reads on one worker thread)`,
      },
      {
        name: "50 KBs x 2,000: server peak RSS",
        value: s.peakRssMb(),
        unit: "MB",
        target: { on: "value", op: "<=", value: 600 },
      },
      { name: "50 KBs x 2,000: routed tools/list result", value: listBytes, unit: "bytes" },
    );
  } finally {
    await s.stop();
  }
  await fs.rm(data, { recursive: true, force: true, maxRetries: 5 });
  return { name: "scale-50kbs", figures };
}
