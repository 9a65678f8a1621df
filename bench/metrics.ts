/**
 * Section `metrics`: what metrics cost on the read path (docs/operations.md "Metrics"; target
 * ≤ 3%). HTTP concept_read at 8 in flight against two built servers in their own processes, one
 * with `CARTOGRAPHER_METRICS=true`, one without, each on its own copy of the 10,000-concept KB
 * (a KB is served by one process at a time). Rounds alternate off and on so machine noise hits
 * both alike; throughput takes the best round of each. A scrape afterwards checks that the
 * measured server counted every call. Beside it, in this process, what the two hooks a read
 * passes through cost per call (the call hook and the HTTP request count), a figure machine
 * load disturbs far less than the throughput ratio. `npm run bench -- metrics` runs only this
 * section.
 */
import fs from "node:fs/promises";
import path from "node:path";
import { ServerMetrics } from "../src/metrics/server-metrics.js";
import type { BenchContext } from "./context.js";
import type { Figure, Section } from "./harness.js";
import { type HttpChild, startBuiltHttp } from "./http-children.js";
import { callBody, postRpc, runLoad } from "./load.js";

const ROUNDS = 5;
const IN_FLIGHT = 8;
const LOAD_CALLS = 2000;
const WARMUP = 200;

export async function run(ctx: BenchContext): Promise<Section> {
  const kb = await ctx.kb();
  const copy = path.join(ctx.tmpRoot, "kb-metrics-off");
  ctx.log(`metrics: copying the KB to ${copy} (one server per KB)`);
  await fs.cp(kb.root, copy, { recursive: true });
  const ids = kb.concepts.map((c) => c.id);
  const bodies = Array.from({ length: LOAD_CALLS }, (_, i) =>
    callBody("concept_read", { id: ids[(i * 7919) % ids.length] as string }),
  );
  const off = await startBuiltHttp(copy, ctx.tmpRoot);
  let on: HttpChild | null = null;
  try {
    on = await startBuiltHttp(kb.root, ctx.tmpRoot, { CARTOGRAPHER_METRICS: "true" });
    const servers: Array<[string, HttpChild]> = [
      ["off", off],
      ["on", on],
    ];
    for (const [who, s] of servers) {
      const res = await postRpc(`${s.base}/mcp`, bodies[0] as string);
      if (res.status !== 200 || res.text.includes('"isError":true'))
        throw new Error(
          `metrics ${who}: concept_read probe answered ${res.status}: ${res.text.slice(0, 300)}`,
        );
    }
    const best = new Map<string, number>();
    let sent = 1;
    for (let round = 0; round < ROUNDS; round++) {
      ctx.log(`metrics: round ${round + 1}/${ROUNDS}`);
      // Alternate which goes first: the second of a pair may find the machine warmer.
      for (const [who, s] of round % 2 === 0 ? servers : [...servers].reverse()) {
        const r = await runLoad({
          url: `${s.base}/mcp`,
          bodies,
          concurrency: IN_FLIGHT,
          calls: LOAD_CALLS,
          warmup: WARMUP,
        });
        if (r.errors > 0)
          throw new Error(`metrics ${who}: ${r.errors} failed calls; first: ${r.firstError}`);
        if (who === "on") sent += LOAD_CALLS + WARMUP;
        best.set(who, Math.max(best.get(who) ?? 0, r.callsPerSec));
      }
    }
    const counted = await countedReads(on);
    if (counted !== sent)
      throw new Error(`metrics: the server counted ${counted} concept_read calls of ${sent} sent`);
    const offRate = best.get("off") ?? 0;
    const onRate = best.get("on") ?? 0;
    const note = `best of ${ROUNDS} alternating rounds of ${LOAD_CALLS} calls; ${counted} calls counted by the scrape`;
    const baseline = "HTTP concept_read calls/s, metrics off";
    const hookNs = hookCost();
    return {
      name: "metrics",
      figures: [
        { name: baseline, value: offRate, unit: "calls/s", note },
        {
          name: "HTTP concept_read calls/s, metrics on",
          value: onRate,
          unit: "calls/s",
          baseline,
          // ≤ 3% overhead: at least 97% of the throughput without metrics.
          target: { on: "ratio", op: ">=", value: 0.97 },
          note,
        },
        {
          name: "metrics hooks per HTTP call (call + request count)",
          value: hookNs,
          unit: "ns",
          note: `in process, ${HOOK_CALLS} calls; a call above takes ${(1e9 / offRate).toFixed(0)} ns (1 / throughput)`,
        },
      ] satisfies Figure[],
    };
  } finally {
    await on?.stop();
    await off.stop();
  }
}

/** `cartographer_tool_calls_total` of concept_read successes, from a loopback scrape. */
async function countedReads(server: HttpChild): Promise<number> {
  const text = await (await fetch(`${server.base}/metrics`)).text();
  const line = text
    .split("\n")
    .find(
      (l) =>
        l.startsWith('cartographer_tool_calls_total{tool="concept_read"') &&
        l.includes('outcome="success"'),
    );
  return line ? Number(line.slice(line.lastIndexOf(" ") + 1)) : 0;
}

const HOOK_CALLS = 200_000;

/** ns per read of what metrics add to it: the pipeline's hook and the HTTP adapter's count. */
function hookCost(): number {
  const metrics = new ServerMetrics();
  const pass = (n: number) => {
    for (let i = 0; i < n; i++) {
      metrics.calls.called("kb", "concept_read", "success", "http", performance.now());
      metrics.httpRequest("/mcp", "POST", 200);
    }
  };
  pass(10_000);
  const start = performance.now();
  pass(HOOK_CALLS);
  return ((performance.now() - start) * 1e6) / HOOK_CALLS;
}
