/**
 * Section `search-100k`: search p50 AND p95 over stdio (official SDK client, the built binary)
 * on a generated 100,000-concept KB, overall and per kind of query: the shared hits, prefix
 * expansions (a short last term matching many tokens) and common words (long doclists) — the
 * two kinds behind the 10–16 ms outliers a p50 alone hides. The figures are the steady state,
 * taken once the server has settled (SETTLE_MS: the search memories build on a worker in the
 * first seconds after the index is ready, docs/decisions.md "The trigram ranker in memory", "The
 * word ranker in memory"); the calls of the first seconds, while they build, are reported apart. Generation
 * takes minutes:
 * `BENCH_100K_KB=<root>` reuses a KB generated earlier (it is then kept);
 * `npm run bench -- search-100k` runs only this section.
 */
import fs from "node:fs/promises";
import path from "node:path";
import type { BenchContext } from "./context.js";
import { generateKb } from "./gen-kb.js";
import { type Figure, type Section, summarize } from "./harness.js";
import { HIT_QUERIES } from "./queries.js";
import { connectStdio, sequential, untilIndexed } from "./sdk-stdio.js";
import { BIN } from "./stdio.js";

const CONCEPTS = 100_000;
const ROUNDS = 20;
/**
 * After the index is ready: the worker's builds at 100,000 concepts (the trigram memory ~0.7 s
 * of CPU, then the word memory ~4 s) and margin.
 */
const SETTLE_MS = 10_000;
const KINDS: Array<[string, string[]]> = [
  ["hits", HIT_QUERIES],
  ["prefix expansion", ["gate", "back", "cert", "firew", "backup rest"]],
  ["common words", ["the", "and", "service", "primary", "node"]],
];

export async function run(ctx: BenchContext): Promise<Section> {
  const given = process.env.BENCH_100K_KB;
  const root = given ?? path.join(ctx.tmpRoot, "kb-search-100k");
  if (!given) {
    ctx.log(`search-100k: generating ${CONCEPTS} concepts under ${root} (minutes)`);
    await generateKb(root, { concepts: CONCEPTS, maps: 8, seed: 7 });
  }
  ctx.log("search-100k: built server over stdio, until its index is ready");
  const server = await connectStdio([BIN, "serve", "--stdio", "--kb", root], ctx.tmpRoot);
  const figures: Figure[] = [];
  try {
    await untilIndexed(server.client);
    const argsOfHits = (i: number) => ({ query: HIT_QUERIES[i % HIT_QUERIES.length] as string });
    const early = summarize(await sequential(server.client, "search", argsOfHits, 120, 0));
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    const all: number[] = [];
    for (const [kind, queries] of KINDS) {
      const argsOf = (i: number) => ({ query: queries[i % queries.length] as string });
      const lat = await sequential(server.client, "search", argsOf, ROUNDS * queries.length, 10);
      all.push(...lat);
      const s = summarize(lat);
      figures.push(
        { name: `100k search p50, ${kind}`, value: s.p50, unit: "ms" },
        { name: `100k search p95, ${kind}`, value: s.p95, unit: "ms" },
      );
    }
    const s = summarize(all);
    figures.unshift(
      {
        name: "100k search p50",
        value: s.p50,
        unit: "ms",
        target: { on: "value", op: "<=", value: 5 },
        note: `${all.length} calls over stdio, ${KINDS.length} kinds of query, ${SETTLE_MS / 1000} s after the index was ready`,
      },
      {
        name: "100k search p95",
        value: s.p95,
        unit: "ms",
        target: { on: "value", op: "<=", value: 10 },
      },
    );
    figures.push(
      {
        name: "100k search p50, first seconds",
        value: early.p50,
        unit: "ms",
        note: "120 hit queries right after the index was ready, the search memories still building",
      },
      { name: "100k search p95, first seconds", value: early.p95, unit: "ms" },
    );
  } finally {
    await server.close();
    if (!given) await fs.rm(root, { recursive: true, force: true, maxRetries: 5 });
  }
  return { name: "search-100k", figures };
}
