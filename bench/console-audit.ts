/**
 * Section `console-audit`: the console's commit index over a large audit log (docs/decisions.md
 * "Console: a commit's call beyond the audit window"). A generated live log of ≥ 100 MB (chained
 * as the sink writes it: reads, and a write with a commit every tenth call) is indexed once;
 * figures: the first pass beside a plain read of the same bytes (the floor of any scan, and what
 * an on-demand scan for one old sha would cost), the memory it keeps, a feed page's 50 lookups of
 * old commits, and the catch-up after 1 MB more. `npm run bench -- console-audit`.
 */
import { createHash } from "node:crypto";
import { mkdir, open, stat } from "node:fs/promises";
import path from "node:path";
import { auditCommitIndex } from "../src/console/data/audit-commits.js";
import { commitCalls } from "../src/console/data/audit-links.js";
import { appendTrail, type TrailCall } from "../test/support/audit-trail.js";
import type { BenchContext } from "./context.js";
import { type Figure, type Section, summarize } from "./harness.js";

const CALLS = 125_000;
const ROUNDS = 30;

/** The commit sha of write `i` (every tenth call writes): random-looking, as git's are. */
const shaOf = (i: number) => createHash("sha1").update(String(i)).digest("hex");

function* calls(n: number, from = 0): Generator<TrailCall> {
  for (let i = from; i < from + n; i++)
    yield i % 10 === 0
      ? {
          kb: "big",
          principal: `writer-${i % 13}`,
          tool: "concept_write",
          commitSha: shaOf(i),
          resources: { id: `m/c${i}` },
        }
      : {
          kb: "big",
          principal: `reader-${i % 7}`,
          tool: "concept_read",
          resources: { id: `m/c${i}` },
        };
}

export async function run(ctx: BenchContext): Promise<Section> {
  const log = path.join(ctx.tmpRoot, "console-audit", "audit.jsonl");
  await mkdir(path.dirname(log), { recursive: true });
  ctx.log(`console-audit: writing ${CALLS} chained calls`);
  const head = await appendTrail(log, calls(CALLS));
  const bytes = (await stat(log)).size;
  const mb = bytes / 1e6;

  const readStart = performance.now();
  await readThrough(log);
  const readMs = performance.now() - readStart;

  const heapBefore = heapUsed();
  const index = auditCommitIndex({ log });
  const buildStart = performance.now();
  await index.refresh();
  const buildMs = performance.now() - buildStart;
  const heapMb = (heapUsed() - heapBefore) / 1e6;

  // A feed page of old commits: 50 writes spread over the whole log (none in the 8 MiB window).
  const old = Array.from({ length: 50 }, (_, k) => shaOf(k * 2000));
  const samples: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const t = performance.now();
    const found = await commitCalls({ log }, "big", old, 0);
    samples.push(performance.now() - t);
    if (old.some((sha) => found.get(sha) === undefined))
      throw new Error("an old commit was not found");
  }
  const lookups = summarize(samples);

  await appendTrail(log, calls(1100, CALLS), head);
  const catchStart = performance.now();
  await index.refresh();
  const catchMs = performance.now() - catchStart;
  if (
    (await commitCalls({ log }, "big", [shaOf(CALLS + 1000)], 0)).get(shaOf(CALLS + 1000)) ===
    undefined
  )
    throw new Error("the appended commit was not indexed");

  const figures: Figure[] = [
    {
      name: "plain read of the log (1 MiB reads)",
      value: readMs,
      unit: "ms",
      note: `${mb.toFixed(0)} MB`,
    },
    {
      name: "index first pass (background)",
      value: buildMs,
      unit: "ms",
      baseline: "plain read of the log (1 MiB reads)",
      note: `${(mb / (buildMs / 1000)).toFixed(0)} MB/s, ${index.size} commits indexed`,
    },
    {
      name: "index memory (heap growth)",
      value: heapMb,
      unit: "MB",
      note: `${index.size} commits`,
    },
    {
      name: "50 old commits' calls (a feed page), p50",
      value: lookups.p50,
      unit: "ms",
      target: { on: "value", op: "<=", value: 20 },
      note: `p95 ${lookups.p95.toFixed(1)} ms, ${ROUNDS} rounds`,
    },
    { name: "catch-up after 1 MB appended", value: catchMs, unit: "ms" },
  ];
  return { name: "console-audit", figures };
}

async function readThrough(file: string): Promise<void> {
  const fh = await open(file, "r");
  try {
    const buf = Buffer.alloc(1 << 20);
    let pos = 0;
    for (;;) {
      const { bytesRead } = await fh.read(buf, 0, buf.length, pos);
      if (bytesRead === 0) break;
      pos += bytesRead;
    }
  } finally {
    await fh.close();
  }
}

function heapUsed(): number {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().heapUsed;
}
