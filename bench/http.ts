/**
 * Section `http`: tools/call over HTTP on the 10,000-concept KB (mountKb + startHttpServer)
 * against the bare SDK stateless server's echo tool in the same run: calls/s, p50 and p99 at
 * concurrency 1, 8 and 32; then concept_read calls/s with the audit in best_effort vs off.
 * Levels are interleaved (bare, concept_read, search at each level) so machine noise hits
 * all three alike. The client is a worker thread (load.ts).
 */
import path from "node:path";
import { openAuditSink } from "../src/audit/sink.js";
import { startHttpServer } from "../src/http/server.js";
import { silentLogger } from "../src/logger.js";
import { createCartographer } from "../src/mcp/app.js";
import { mountKb } from "../src/runtime/mount.js";
import { startBareServer } from "./bare-server.js";
import type { BenchContext } from "./context.js";
import { type Figure, type Section, summarize } from "./harness.js";
import { callBody, type LoadResult, postRpc, runLoad } from "./load.js";
import { HIT_QUERIES } from "./queries.js";

const LEVELS = [1, 8, 32];
const CALLS = 2000;
const WARMUP = 200;
const AUDIT_CONCURRENCY = 8;
const AUDIT_ROUNDS = 2;

/** Throws unless one call of `body` at `url` is a successful tool result. */
async function check(url: string, body: string): Promise<void> {
  const res = await postRpc(url, body);
  const doc = res.json() as { result?: { isError?: boolean } };
  if (res.status !== 200 || doc.result === undefined || doc.result.isError)
    throw new Error(`probe at ${url} answered ${res.status}: ${res.text.slice(0, 300)}`);
}

function latencyFigures(name: string, r: LoadResult, baseline?: string, target?: number): Figure[] {
  if (r.errors > 0)
    throw new Error(`${name}: ${r.errors} failed calls; first: ${r.firstError ?? "?"}`);
  const s = summarize(r.latenciesMs);
  return [
    {
      name: `${name} calls/s`,
      value: r.callsPerSec,
      unit: "calls/s",
      baseline,
      target: target !== undefined ? { on: "ratio", op: ">=", value: target } : undefined,
    },
    { name: `${name} p50`, value: s.p50, unit: "ms" },
    { name: `${name} p99`, value: s.p99, unit: "ms" },
  ];
}

export async function run(ctx: BenchContext): Promise<Section> {
  const kb = await ctx.kb();
  ctx.log("http: mounting the generated KB");
  const mount = await mountKb(ctx.settings(kb.root), { logger: silentLogger });
  const app = await createCartographer({ mounts: [mount], logger: silentLogger });
  const plain = await startHttpServer({ app, port: 0, version: "bench" });
  const auditPath = path.join(ctx.tmpRoot, "http-audit.jsonl");
  const sink = await openAuditSink({ path: auditPath, mode: "best_effort" });
  // Same mount behind a second server that audits (its app closes the mount again: a no-op).
  const auditedApp = await createCartographer({
    mounts: [mount],
    logger: silentLogger,
    audit: sink,
  });
  const audited = await startHttpServer({ app: auditedApp, port: 0, version: "bench" });
  const bare = await startBareServer();
  const figures: Figure[] = [];
  try {
    const ids = kb.concepts.map((c) => c.id);
    const step = Math.floor(ids.length / CALLS) || 1;
    const readBodies = Array.from({ length: CALLS }, (_, i) =>
      callBody("concept_read", { id: ids[(i * step) % ids.length] }),
    );
    const searchBodies = HIT_QUERIES.map((query) => callBody("search", { query }));
    const echoBodies = [callBody("echo", { text: "hello" })];
    const ours = `${plain.url}/mcp`;
    await check(ours, readBodies[0] as string);
    await check(ours, searchBodies[0] as string);
    await check(bare.url, echoBodies[0] as string);

    for (const c of LEVELS) {
      const job = { concurrency: c, calls: CALLS, warmup: WARMUP };
      ctx.log(`http: concurrency ${c}: bare echo, concept_read, search (${CALLS} calls each)`);
      const echo = await runLoad({ ...job, url: bare.url, bodies: echoBodies });
      const read = await runLoad({ ...job, url: ours, bodies: readBodies });
      const find = await runLoad({ ...job, url: ours, bodies: searchBodies });
      const base = `bare echo c${c}`;
      figures.push(...latencyFigures(base, echo));
      figures.push(...latencyFigures(`concept_read c${c}`, read, `${base} calls/s`, 0.6));
      figures.push(...latencyFigures(`search c${c}`, find, `${base} calls/s`));
    }

    ctx.log(
      `http: concept_read c${AUDIT_CONCURRENCY}, audit off vs best_effort (${AUDIT_ROUNDS} rounds)`,
    );
    const job = {
      concurrency: AUDIT_CONCURRENCY,
      calls: CALLS,
      warmup: WARMUP,
      bodies: readBodies,
    };
    let off = 0;
    let on = 0;
    for (let i = 0; i < AUDIT_ROUNDS; i++) {
      off = Math.max(off, (await runLoad({ ...job, url: ours })).callsPerSec);
      on = Math.max(on, (await runLoad({ ...job, url: `${audited.url}/mcp` })).callsPerSec);
    }
    const offName = `concept_read c${AUDIT_CONCURRENCY} audit off calls/s`;
    figures.push({ name: offName, value: off, unit: "calls/s", note: `best of ${AUDIT_ROUNDS}` });
    figures.push({
      name: `concept_read c${AUDIT_CONCURRENCY} audit best_effort calls/s`,
      value: on,
      unit: "calls/s",
      baseline: offName,
      target: { on: "ratio", op: ">=", value: 0.8 },
      note: `best of ${AUDIT_ROUNDS}; 2 audit entries per call, fsync group commit`,
    });
  } finally {
    await bare.close();
    await audited.close();
    await plain.close();
    await auditedApp.close();
    await app.close();
    await sink.close();
  }
  return { name: "http", figures };
}
