/**
 * Section `one-pass`: the figures of one pass per request, each against its baseline in the
 * same run, on the 10,000-concept KB:
 * - stdio concept_read (official SDK client): calls/s at 8 in flight and p50 one at a time, the
 *   built binary vs a bare SDK server whose one tool reads the same file;
 * - HTTP concept_read at 8 in flight, the built binary vs the bare SDK stateless server reading
 *   the same file (both in their own process, the load from a worker thread);
 * - a routed concept_write + commit over HTTP vs a raw `git add && git commit` of the same kind
 *   of file, interleaved.
 * Rounds alternate baseline and ours so machine noise hits both alike; throughput takes the best
 * round of each (the least disturbed by other work on a shared machine), p50 the median round.
 * `npm run bench -- one-pass` runs only this section.
 */
import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import type { BenchContext } from "./context.js";
import { BENCH_GIT_ENV } from "./gen-kb.js";
import { type Figure, type Section, summarize } from "./harness.js";
import { type HttpChild, startBareReadHttp, startBuiltHttp } from "./http-children.js";
import { callBody, postRpc, runLoad } from "./load.js";
import {
  connectStdio,
  type StdioServer,
  sequential,
  throughput,
  untilIndexed,
} from "./sdk-stdio.js";
import { BIN } from "./stdio.js";

const exec = promisify(execFile);
const BARE_READ_STDIO = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  "bare-read-stdio-server.mjs",
);
const ROUNDS = 3;
const IN_FLIGHT = 8;
const LOAD_CALLS = 2000;
const SEQUENTIAL_CALLS = 300;
const WARMUP = 100;
const WRITES = 20;

export async function run(ctx: BenchContext): Promise<Section> {
  const kb = await ctx.kb();
  const ids = kb.concepts.map((c) => c.id);
  const idOf = (i: number) => ({ id: ids[(i * 7919) % ids.length] as string });
  const figures: Figure[] = [];
  figures.push(...(await stdioFigures(ctx, kb.root, idOf)));
  ctx.log("one-pass: HTTP servers (built binary, bare SDK read server)");
  const ours = await startBuiltHttp(kb.root, ctx.tmpRoot);
  const bare = await startBareReadHttp(kb.root);
  try {
    figures.push(...(await httpFigures(ctx, ours, bare, idOf)));
    figures.push(...(await writeFigures(ctx, ours, kb.root, kb.maps[1] ?? (kb.maps[0] as string))));
  } finally {
    await bare.stop();
    await ours.stop();
  }
  return { name: "one-pass", figures };
}

async function stdioFigures(
  ctx: BenchContext,
  root: string,
  idOf: (i: number) => { id: string },
): Promise<Figure[]> {
  ctx.log("one-pass: stdio servers (built binary until its index is ready, bare SDK read server)");
  const servers: Array<[string, StdioServer]> = [];
  try {
    const ours = await connectStdio([BIN, "serve", "--stdio", "--kb", root], ctx.tmpRoot);
    servers.push(["ours", ours]);
    await untilIndexed(ours.client);
    servers.unshift(["bare", await connectStdio([BARE_READ_STDIO, root], ctx.tmpRoot)]);
    const best = new Map<string, number>();
    const p50s = new Map<string, number[]>();
    for (let round = 0; round < ROUNDS; round++) {
      ctx.log(`one-pass: stdio round ${round + 1}/${ROUNDS}`);
      for (const [who, s] of servers) {
        await sequential(s.client, "concept_read", idOf, 0, WARMUP);
        const rate = await throughput(s.client, "concept_read", idOf, LOAD_CALLS, IN_FLIGHT);
        best.set(who, Math.max(best.get(who) ?? 0, rate));
        const lat = await sequential(s.client, "concept_read", idOf, SEQUENTIAL_CALLS, 0);
        p50s.set(who, [...(p50s.get(who) ?? []), summarize(lat).p50]);
      }
    }
    const median = (who: string) => {
      const v = [...(p50s.get(who) ?? [])].sort((a, b) => a - b);
      return v[Math.floor(v.length / 2)] as number;
    };
    const bareRate = "stdio bare SDK read calls/s, 8 in flight";
    const bareP50 = "stdio bare SDK read p50, 1 in flight";
    const note = `best of ${ROUNDS} rounds of ${LOAD_CALLS} calls; official SDK client`;
    return [
      { name: bareRate, value: best.get("bare") ?? 0, unit: "calls/s", note },
      {
        name: "stdio concept_read calls/s, 8 in flight",
        value: best.get("ours") ?? 0,
        unit: "calls/s",
        baseline: bareRate,
        target: { on: "ratio", op: ">=", value: 0.9 },
        note,
      },
      { name: bareP50, value: median("bare"), unit: "ms", note: `median of ${ROUNDS} rounds` },
      {
        name: "stdio concept_read p50, 1 in flight",
        value: median("ours"),
        unit: "ms",
        baseline: bareP50,
        target: { on: "ratio", op: "<=", value: 1.1 },
        note: `median of ${ROUNDS} rounds of ${SEQUENTIAL_CALLS} calls`,
      },
    ];
  } finally {
    for (const [, s] of servers) await s.close();
  }
}

async function httpFigures(
  ctx: BenchContext,
  ours: HttpChild,
  bare: HttpChild,
  idOf: (i: number) => { id: string },
): Promise<Figure[]> {
  const bodies = Array.from({ length: LOAD_CALLS }, (_, i) => callBody("concept_read", idOf(i)));
  const servers: Array<[string, string]> = [
    ["bare", `${bare.base}/mcp`],
    ["ours", `${ours.base}/mcp`],
  ];
  for (const [who, url] of servers) {
    const res = await postRpc(url, bodies[0] as string);
    if (res.status !== 200 || res.text.includes('"isError":true'))
      throw new Error(
        `${who} concept_read probe answered ${res.status}: ${res.text.slice(0, 300)}`,
      );
  }
  const best = new Map<string, { rate: number; p50: number }>();
  for (let round = 0; round < ROUNDS; round++) {
    ctx.log(`one-pass: HTTP round ${round + 1}/${ROUNDS}`);
    for (const [who, url] of servers) {
      const r = await runLoad({
        url,
        bodies,
        concurrency: IN_FLIGHT,
        calls: LOAD_CALLS,
        warmup: WARMUP,
      });
      if (r.errors > 0) throw new Error(`${who}: ${r.errors} failed calls; first: ${r.firstError}`);
      if (r.callsPerSec > (best.get(who)?.rate ?? 0))
        best.set(who, { rate: r.callsPerSec, p50: summarize(r.latenciesMs).p50 });
    }
  }
  const bareRate = "HTTP bare SDK read calls/s, 8 in flight";
  const note = `best of ${ROUNDS} rounds of ${LOAD_CALLS} calls`;
  return [
    { name: bareRate, value: best.get("bare")?.rate ?? 0, unit: "calls/s", note },
    {
      name: "HTTP concept_read calls/s, 8 in flight",
      value: best.get("ours")?.rate ?? 0,
      unit: "calls/s",
      baseline: bareRate,
      target: { on: "ratio", op: ">=", value: 0.95 },
      note,
    },
    { name: "HTTP bare SDK read p50, 8 in flight", value: best.get("bare")?.p50 ?? 0, unit: "ms" },
    {
      name: "HTTP concept_read p50, 8 in flight",
      value: best.get("ours")?.p50 ?? 0,
      unit: "ms",
      baseline: "HTTP bare SDK read p50, 8 in flight",
    },
  ];
}

/** Routed concept_write + commit over HTTP vs raw git, interleaved, on the same repository. */
async function writeFigures(
  ctx: BenchContext,
  ours: HttpChild,
  root: string,
  map: string,
): Promise<Figure[]> {
  const env = { ...process.env, ...BENCH_GIT_ENV };
  const kbName = path.basename(root);
  const body = (i: number) =>
    `# Bench note ${i}\n\nWritten by the one-pass benchmark, round ${i}.\n`;
  ctx.log(`one-pass: ${WRITES} routed concept_write calls and ${WRITES} raw git commits`);
  let rawMs = 0;
  let oursMs = 0;
  for (let i = 0; i < WRITES; i++) {
    const rel = `data/${map}/one-pass/raw-${i}.md`;
    let start = performance.now();
    await fs.mkdir(path.dirname(path.join(root, rel)), { recursive: true });
    await fs.writeFile(path.join(root, rel), `---\ntype: note\ntitle: Raw ${i}\n---\n${body(i)}`);
    await exec("git", ["add", "--", rel], { cwd: root, env });
    await exec("git", ["commit", "-q", "-m", `raw: ${rel}`], { cwd: root, env });
    rawMs += performance.now() - start;

    start = performance.now();
    const res = await postRpc(
      `${ours.base}/mcp/routed`,
      callBody("concept_write", {
        kb: kbName,
        id: `${map}/one-pass/tool-${i}`,
        frontmatter: { type: "note", title: `Tool ${i}` },
        body: body(i),
      }),
    );
    oursMs += performance.now() - start;
    if (res.status !== 200 || res.text.includes('"isError":true'))
      throw new Error(`routed concept_write answered ${res.status}: ${res.text.slice(0, 300)}`);
  }
  const raw = "raw git add && git commit";
  return [
    { name: raw, value: WRITES / (rawMs / 1000), unit: "commits/s" },
    {
      name: "routed concept_write + commit (HTTP)",
      value: WRITES / (oursMs / 1000),
      unit: "writes/s",
      baseline: raw,
      target: { on: "ratio", op: ">=", value: 0.9 },
      note: `${WRITES} each, interleaved`,
    },
  ];
}
