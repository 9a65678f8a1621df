/**
 * Section `hardening` (docs/benchmarks.md "Hardening"): worst-case searches must not stall the
 * server.
 * - no-hit search p50 on the 10,000-concept KB (every stage runs: all terms, any term, the
 *   substring fallback over the index);
 * - `/health` p99 while 8 clients run no-hit searches over HTTP against a server in its own
 *   process (the probe and the load run outside the server's event loop);
 * - the server's RSS with a 50 MB concept in the KB, after 100 searches.
 * Run it alone with `npx tsx bench/main.ts hardening` (no build needed).
 */
import fs from "node:fs/promises";
import { Agent, get } from "node:http";
import path from "node:path";
import { VISIBLE_ALL } from "../src/kb/core/types.js";
import type { BenchContext } from "./context.js";
import { type Figure, type Section, summarize } from "./harness.js";
import { callBody, postRpc, runLoad } from "./load.js";
import { spawnServer } from "./serve-child.js";
import { ADJECTIVES, NOUNS, VERBS } from "./words.js";

/** Queries nothing in the generated KB matches: word, words, fragment, CJK, punctuation. */
const NO_HIT = ["zzqxv", "zzqxv wwkqy jjvq", "qqxqz", "東京タワー", "nothing-here-42x"];
const ITERATIONS = 30;
const LOAD_CLIENTS = 8;
const LOAD_CALLS = 800;
const HEALTH_EVERY_MS = 10;
const HUGE_BYTES = 50 * 1024 * 1024;
const HUGE_SEARCHES = 100;
const IDLE_MS = 10_000;
/** RSS of the server on the plain KB after the load, for comparison. */
let baselineRss = Number.NaN;

export async function run(ctx: BenchContext): Promise<Section> {
  const figures: Figure[] = [];
  figures.push(...(await noHitLatency(ctx)));
  figures.push(...(await healthUnderLoad(ctx)));
  figures.push(...(await hugeConceptMemory(ctx)));
  return { name: "hardening", figures };
}

async function noHitLatency(ctx: BenchContext): Promise<Figure[]> {
  const index = await ctx.kbIndex();
  ctx.log(`hardening: ${NO_HIT.length} no-hit queries × ${ITERATIONS} on the index`);
  const times: number[] = [];
  let hits = 0;
  for (let i = 0; i < ITERATIONS + 2; i++) {
    for (const query of NO_HIT) {
      const start = performance.now();
      const r = index.search({ query, limit: 10, visibility: VISIBLE_ALL });
      if (i >= 2) times.push(performance.now() - start);
      hits += r.results.length;
    }
  }
  const s = summarize(times);
  return [
    {
      name: "no-hit search p50",
      value: s.p50,
      unit: "ms",
      target: { on: "value", op: "<=", value: 20 },
      note: hits > 0 ? `${hits} unexpected hits` : "all three stages ran, 0 hits",
    },
    { name: "no-hit search p99", value: s.p99, unit: "ms" },
  ];
}

async function healthUnderLoad(ctx: BenchContext): Promise<Figure[]> {
  const kb = await ctx.kb();
  ctx.log("hardening: server process on the 10,000-concept KB");
  const server = await spawnServer(kb.root);
  try {
    const mcp = `${server.url}/mcp`;
    const bodies = NO_HIT.map((query) => callBody("search", { query }));
    const probe = await postRpc(mcp, bodies[0] as string);
    if (probe.status !== 200) throw new Error(`search probe answered ${probe.status}`);
    ctx.log(`hardening: /health every ${HEALTH_EVERY_MS} ms while ${LOAD_CLIENTS} clients search`);
    const quiet = await probeHealth(server.url, sleep(1_000));
    const job = { url: mcp, concurrency: LOAD_CLIENTS, calls: LOAD_CALLS, warmup: 40 };
    // The same load of the cheapest tool call: what the HTTP/MCP path alone costs /health.
    const ids = kb.concepts.slice(0, 50).map((c) => callBody("concept_read", { id: c.id }));
    const readLoad = runLoad({ ...job, bodies: ids });
    const underReads = await probeHealth(server.url, readLoad);
    const load = runLoad({ ...job, bodies });
    const loaded = await probeHealth(server.url, load);
    const result = await load;
    if (result.errors > 0) throw new Error(`no-hit load: ${result.firstError}`);
    if ((await readLoad).errors > 0)
      throw new Error(`concept_read load: ${(await readLoad).firstError}`);
    baselineRss = server.memory().rssMiB;
    const h = summarize(loaded);
    const s = summarize(result.latenciesMs);
    const baseName = `/health p99, ${LOAD_CLIENTS} clients running concept_read`;
    return [
      { name: "/health p99, idle server", value: summarize(quiet).p99, unit: "ms" },
      { name: baseName, value: summarize(underReads).p99, unit: "ms" },
      {
        name: `/health p99, ${LOAD_CLIENTS} clients running no-hit searches`,
        value: h.p99,
        unit: "ms",
        baseline: baseName,
        target: { on: "value", op: "<=", value: 100 },
        note: `${h.n} probes, max ${Math.max(...loaded).toFixed(1)} ms`,
      },
      {
        name: `no-hit search over HTTP, c${LOAD_CLIENTS}`,
        value: result.callsPerSec,
        unit: "calls/s",
        note: `p50 ${s.p50.toFixed(1)} ms, p99 ${s.p99.toFixed(1)} ms`,
      },
    ];
  } finally {
    await server.stop();
  }
}

async function hugeConceptMemory(ctx: BenchContext): Promise<Figure[]> {
  const kb = await ctx.kb();
  const root = path.join(ctx.tmpRoot, "kb-huge");
  ctx.log("hardening: copying the KB and adding a 50 MB concept");
  // Timestamps kept: the copy's index is up to date but for the new file, as on a live server.
  await fs.cp(kb.root, root, { recursive: true, preserveTimestamps: true });
  await fs.rm(path.join(root, ".cartographer", "kb.lock"), { force: true });
  await fs.writeFile(path.join(root, "data", kb.maps[0] as string, "huge-log.md"), hugeConcept());
  const started = performance.now();
  const server = await spawnServer(root);
  const openMs = performance.now() - started;
  try {
    const mcp = `${server.url}/mcp`;
    const before = server.memory();
    // Hits inside the big concept (word and fragment), a word past the indexed prefix, misses.
    const queries = ["gateway restore", "zqmarkerfra", "tailonlymarker", "zzqxv", "firmware"];
    const times: number[] = [];
    for (let i = 0; i < HUGE_SEARCHES; i++) {
      const start = performance.now();
      const res = await postRpc(mcp, callBody("search", { query: queries[i % queries.length] }));
      times.push(performance.now() - start);
      if (res.status !== 200 || res.text.includes('"isError":true'))
        throw new Error(`search in the huge KB: ${res.text.slice(0, 200)}`);
    }
    const after = server.memory();
    // V8 returns the memory of the one-time read of the big file once the process idles.
    await sleep(IDLE_MS);
    const idle = server.memory();
    const s = summarize(times);
    return [
      {
        name: "server RSS with a 50 MB concept, after 100 searches",
        value: after.rssMiB,
        unit: "MiB",
        target: { on: "value", op: "<=", value: 400 },
        note: `${before.rssMiB.toFixed(0)} MiB before the searches, peak ${after.peakMiB.toFixed(0)} MiB (reading the file at open); without the concept ${baselineRss.toFixed(0)} MiB`,
      },
      {
        name: `server RSS with a 50 MB concept, ${IDLE_MS / 1000} s idle after the searches`,
        value: idle.rssMiB,
        unit: "MiB",
      },
      {
        name: "search p50 with a 50 MB concept (HTTP)",
        value: s.p50,
        unit: "ms",
        note: `max ${Math.max(...times).toFixed(1)} ms; server start incl. index ${(openMs / 1000).toFixed(1)} s`,
      },
    ];
  } finally {
    await server.stop();
  }
}

/** Sequential GET /health (keep-alive) until `until` settles; latencies in ms. */
export async function probeHealth(base: string, until: Promise<unknown>): Promise<number[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  let done = false;
  void until.finally(() => {
    done = true;
  });
  const out: number[] = [];
  while (!done) {
    const start = performance.now();
    await new Promise<void>((resolve, reject) => {
      get(`${base}/health`, { agent }, (res) => {
        res.resume();
        res.on("end", () =>
          res.statusCode === 200 ? resolve() : reject(new Error(`/health ${res.statusCode}`)),
        );
      }).on("error", reject);
    });
    out.push(performance.now() - start);
    await sleep(HEALTH_EVERY_MS);
  }
  agent.destroy();
  return out;
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** ~50 MB of log-like prose; a fragment marker in the first MiB, a word only at the very end. */
function hugeConcept(): string {
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < HUGE_BYTES; i++) {
    const w = (list: string[], k: number) => list[(i * k) % list.length];
    let line = `${i}: the ${w(ADJECTIVES, 7)} ${w(NOUNS, 13)} ${w(VERBS, 5)} the ${w(NOUNS, 3)}.`;
    if (i === 10_000) line += " see qzqmarkerfragz.";
    lines.push(line);
    size += line.length + 1;
  }
  lines.push("tailonlymarker");
  return `---\ntype: note\ntitle: Huge log\n---\n${lines.join("\n")}\n`;
}
