/**
 * The sync chaos test, CI's short copy: three `cartographer serve` processes
 * on three clones of one bare repository, writers on each (every 4th write to one of 3 shared
 * concepts), a SIGKILL with restart, the remote unreachable for a while, conflicts resolved
 * through git_conflict_resolve. After convergence every acknowledged write is on the remote,
 * every instance lists every acknowledged concept, and no instance is wedged. The long run
 * (3 × 8 writers, ≥ 45 s, 5 SIGKILLs, a 10 s outage) is `npm run bench -- sync-chaos`
 * (bench/sync-chaos.ts, figures in docs/benchmarks.md).
 */
import { describe, expect, it } from "vitest";
import { runChaos } from "../../bench/sync-chaos.js";
import { useTempDirs } from "../support/temp-dir.js";

const dirs = useTempDirs("carto-chaos-");

describe("sync chaos (short)", () => {
  it("3 instances, writers, a SIGKILL, an outage: every acked write on the remote, none wedged", async () => {
    const seed = Number(process.env.CHAOS_SEED ?? Date.now() % 1_000_000);
    const report = await runChaos({
      dir: dirs(),
      instances: 3,
      writers: 2,
      loadMs: 10_000,
      kills: 1,
      outageMs: 2_000,
      resolveEveryMs: 2_000,
      convergeMs: 20_000,
      seed,
      log: (m) => process.stderr.write(`chaos[${seed}]: ${m}\n`),
    });
    const summary = JSON.stringify({ ...report, missing: report.missing.slice(0, 5) });
    expect(report.acked, summary).toBeGreaterThan(5);
    expect(report.missing, summary).toEqual([]);
    expect(report.onRemote).toBe(report.acked);
    expect(report.listMissing, summary).toEqual([]);
    expect(report.wedged, summary).toEqual([]);
    expect(report.kills).toBe(1);
  }, 60_000);
});
