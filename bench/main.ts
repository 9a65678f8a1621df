/**
 * `npm run bench [-- FILTER]`: runs the benchmark sections in order (those whose name contains
 * FILTER, or is FILTER, when given), prints every figure with its target and its ratio against the baseline
 * measured in the same run, and records them in bench/.out/latest.json.
 */
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as audit from "./audit-section.js";
import * as auth from "./auth.js";
import * as consoleSection from "./console.js";
import * as consoleActivity from "./console-activity.js";
import * as consoleAudit from "./console-audit.js";
import { BenchContext } from "./context.js";
import * as hardening from "./hardening.js";
import { record, type Section, table } from "./harness.js";
import * as http from "./http.js";
import * as importSection from "./import.js";
import * as kb from "./kb.js";
import * as mcpLists from "./mcp-lists.js";
import * as metrics from "./metrics.js";
import * as onePass from "./one-pass.js";
import * as passes from "./passes.js";
import * as provision from "./provision.js";
import * as scale from "./scale.js";
import * as search from "./search.js";
import * as search100k from "./search-100k.js";
import * as semantic from "./semantic.js";
import * as startup from "./startup.js";
import * as stdio from "./stdio.js";
import * as sync from "./sync.js";
import * as syncChaos from "./sync-chaos.js";
import * as write from "./write.js";

interface SectionModule {
  run(ctx: BenchContext): Promise<Section>;
}

const SECTIONS: Array<[string, SectionModule]> = [
  ["kb", kb],
  ["search", search],
  ["semantic", semantic],
  ["write", write],
  ["mcp-lists", mcpLists],
  ["http", http],
  ["stdio", stdio],
  ["auth", auth],
  ["audit", audit],
  ["hardening", hardening],
  ["startup", startup],
  ["sync", sync],
  // 3 server processes × 8 writers, SIGKILLs and an outage (docs/benchmarks.md "Sync under chaos"):
  // about 2 minutes.
  ["sync-chaos", syncChaos],
  ["provision", provision],
  // Minutes each (generation of 100,000 files): `npm run bench -- scale` runs only these two.
  ["scale-100k", { run: scale.runBig }],
  ["scale-50kbs", { run: scale.runMany }],
  // Minutes too (a 100,000-concept KB): `npm run bench -- passes` runs only it.
  ["passes-100k", passes],
  // One pass per request: ours vs the bare SDK server reading the same file (stdio, HTTP), a
  // routed concept_write vs raw git; `npm run bench -- one-pass,search-100k` runs both.
  ["one-pass", onePass],
  // Minutes (a 100,000-concept KB; BENCH_100K_KB reuses one): search p50 beside p95.
  ["search-100k", search100k],
  ["console-activity", consoleActivity],
  // A 110 MB audit log (about 20 s to write): the console's commit index; `npm run bench -- console-audit`.
  ["console-audit", consoleAudit],
  // About a minute (a 10,000-note vault imported into a KB folder): `npm run bench -- import`.
  ["import-10k", importSection],
  // Metrics on vs off, HTTP concept_read (docs/benchmarks.md "Metrics overhead"): `npm run bench -- metrics`.
  ["metrics", metrics],
  // Minutes (a 100,000-concept KB; BENCH_100K_KB reuses one): the console's pages, first byte.
  ["console", consoleSection],
];

async function main(): Promise<void> {
  const filter = process.argv[2];
  // `kb,hardening` runs several sections.
  const wanted = filter?.split(",").filter((f) => f !== "") ?? [];
  // A filter that is a section's whole name picks that one only (`search` is not search-100k).
  const exact = new Set(SECTIONS.map(([name]) => name).filter((name) => wanted.includes(name)));
  const chosen = SECTIONS.filter(
    ([name]) =>
      wanted.length === 0 || wanted.some((f) => name === f || (!exact.has(f) && name.includes(f))),
  );
  if (chosen.length === 0) {
    process.stderr.write(
      `no section matches ${JSON.stringify(filter)}; sections: ${SECTIONS.map(([n]) => n).join(", ")}\n`,
    );
    process.exitCode = 2;
    return;
  }
  const ctx = await BenchContext.create();
  const results: Section[] = [];
  try {
    for (const [name, mod] of chosen) {
      ctx.log(`section ${name}`);
      // A failing section is reported, not fatal: the figures of the others still print.
      results.push(
        await mod.run(ctx).catch((err: unknown) => ({
          name,
          figures: [],
          pending: [`failed: ${err instanceof Error ? err.message.slice(0, 300) : String(err)}`],
        })),
      );
    }
  } finally {
    await ctx.close();
  }
  process.stdout.write(`${table(results)}\n`);
  // Shared machines skew every figure: say how busy this one was.
  const load = os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");
  process.stdout.write(`node ${process.version}, ${os.cpus().length} cpus, load average ${load}\n`);
  const out = path.join(path.dirname(fileURLToPath(import.meta.url)), ".out");
  process.stdout.write(`recorded in ${await record(out, results)}\n`);
}

main().catch((err) => {
  process.stderr.write(
    `bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
  );
  process.exitCode = 1;
});
