/**
 * Section `passes-100k`: whole-KB passes from read-only tokens cannot take the server down
 * (docs/operations.md "Whole-KB passes"). Against a server in its own process (HTTP, auth on,
 * 8 read-only tokens) over a generated 100,000-concept KB:
 * - peak RSS above the idle process during one `lint`;
 * - peak RSS above idle while 32 `lint` POSTs arrive at once (4 per token): the pass queue runs
 *   2, lets 16 wait (up to 30 s) and answers the rest `busy`;
 * - `/health` p99 meanwhile.
 * RSS is sampled from /proc every 25 ms. `BENCH_PASSES_KB=<root>` reuses a generated KB
 * (generation takes minutes); `npm run bench -- passes` runs only this section.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { BenchContext } from "./context.js";
import { generateKb } from "./gen-kb.js";
import { probeHealth } from "./hardening.js";
import { type Figure, type Section, summarize } from "./harness.js";
import { callBody, postRpc } from "./load.js";
import { type ChildServer, spawnServer } from "./serve-child.js";

const CONCEPTS = 100_000;
const READERS = 8;
const PER_READER = 4;
const SAMPLE_MS = 25;

export async function run(ctx: BenchContext): Promise<Section> {
  const given = process.env.BENCH_PASSES_KB;
  const root = given ?? path.join(ctx.tmpRoot, "kb-passes");
  if (!given) {
    ctx.log(`passes: generating ${CONCEPTS} concepts under ${root} (minutes)`);
    await generateKb(root, { concepts: CONCEPTS, maps: 8, seed: 7 });
  }
  ctx.log("passes: server process (index build at mount)");
  const server = await spawnServer(root, READERS);
  try {
    return { name: "passes-100k", figures: await measure(ctx, server) };
  } finally {
    await server.stop();
    if (!given) fs.rmSync(root, { recursive: true, force: true, maxRetries: 5 });
  }
}

async function measure(ctx: BenchContext, server: ChildServer): Promise<Figure[]> {
  const mcp = `${server.url}/mcp`;
  // A failed request is an answer too (counted), so one reset cannot void the other figures.
  const lint = (reader: number) =>
    postRpc(mcp, callBody("lint", {}), { Authorization: `Bearer bench-reader-${reader}` }).catch(
      (err: unknown) => ({ status: 0, text: `request failed: ${String(err)}` }),
    );
  const status = await postRpc(mcp, callBody("kb_status", {}), {
    Authorization: "Bearer bench-reader-0",
  });
  const concepts = /\\?"concepts\\?":(\d+)/.exec(status.text)?.[1];
  await sleep(2_000);
  const idle = server.memory().rssMiB;

  ctx.log("passes: one lint");
  const one = await sampled(server, async () => {
    const start = performance.now();
    const res = await lint(0);
    return { ms: performance.now() - start, text: res.text };
  });
  if (!one.value.text.includes('\\"checks\\"')) {
    throw new Error(`lint answered ${one.value.text.slice(0, 300)}`);
  }
  await sleep(2_000);
  const idleAgain = server.memory().rssMiB;

  ctx.log(
    `passes: ${READERS * PER_READER} lints at once (${PER_READER} per token), /health probed`,
  );
  const load1 = os.loadavg()[0] ?? 0;
  const burst = Array.from({ length: READERS * PER_READER }, (_, i) => lint(i % READERS));
  const many = await sampled(server, async () => {
    const health = await probeHealth(server.url, Promise.all(burst)).catch((err: unknown) => {
      throw new Error(`/health failed during the burst: ${String(err)}`);
    });
    return { health, answers: await Promise.all(burst) };
  });
  const ok = many.value.answers.filter((a) => a.text.includes('\\"checks\\"')).length;
  const busy = many.value.answers.filter((a) => a.text.includes("busy: lint")).length;
  const failed = many.value.answers.filter((a) => a.text.startsWith("request failed")).length;
  const h = summarize(many.value.health);
  return [
    {
      name: "100k: peak RSS of one lint over the idle server",
      value: one.peak - idle,
      unit: "MiB",
      target: { on: "value", op: "<=", value: 300 },
      note: `${concepts ?? "?"} concepts; idle ${idle.toFixed(0)} MiB, peak ${one.peak.toFixed(0)} MiB; lint took ${(one.value.ms / 1000).toFixed(1)} s`,
    },
    {
      name: `100k: peak RSS of ${READERS * PER_READER} concurrent lints over the idle server`,
      value: many.peak - idleAgain,
      unit: "MiB",
      target: { on: "value", op: "<=", value: 600 },
      note: `${READERS} read-only tokens x ${PER_READER}; ${ok} answered, ${busy} busy, ${failed} failed requests (pass queue: 2 run, 16 wait up to 30 s, 4 per token); idle ${idleAgain.toFixed(0)} MiB, peak ${many.peak.toFixed(0)} MiB; load average ${load1.toFixed(2)} at start`,
    },
    {
      name: `100k: /health p99 during ${READERS * PER_READER} concurrent lints`,
      value: h.p99,
      unit: "ms",
      target: { on: "value", op: "<=", value: 100 },
      note: `${h.n} probes, p50 ${h.p50.toFixed(1)} ms, max ${Math.max(...many.value.health).toFixed(1)} ms`,
    },
  ];
}

/** Runs `fn` while sampling the server's RSS; the peak in MiB. */
async function sampled<T>(
  server: ChildServer,
  fn: () => Promise<T>,
): Promise<{ value: T; peak: number }> {
  let peak = server.memory().rssMiB;
  const timer = setInterval(() => {
    peak = Math.max(peak, server.memory().rssMiB);
  }, SAMPLE_MS);
  try {
    const value = await fn();
    return { value, peak: Math.max(peak, server.memory().rssMiB) };
  } finally {
    clearInterval(timer);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
