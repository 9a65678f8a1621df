import { spawn } from "node:child_process";
import * as fs from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openAuditSink } from "../../src/audit/sink.js";
import { verifyAudit } from "../../src/audit/verify.js";
import { appendPairs, tempDir } from "./helpers.js";

let dir: string | undefined;
afterEach(async () => {
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

/** Complete lines written so far: the live log plus every rotated segment. */
async function linesOnDisk(log: string): Promise<{ lines: number; segments: number }> {
  const archive = path.join(path.dirname(log), "audit-archive");
  const segments = (await fs.readdir(archive).catch(() => [] as string[])).filter((n) =>
    /^audit\.\d{8}\.jsonl$/.test(n),
  );
  let lines = 0;
  for (const f of [log, ...segments.map((n) => path.join(archive, n))]) {
    const text = await fs.readFile(f, "utf8").catch(() => "");
    for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) lines++;
  }
  return { lines, segments: segments.length };
}

const MIN_LINES = 600;

describe("a writer killed with SIGKILL under load", () => {
  it("leaves at most a truncated last line and unmatched attempts; the next open heals it", async () => {
    dir = await tempDir();
    const log = path.join(dir, "audit.jsonl");
    const child = spawn(
      process.execPath,
      ["--import", "tsx", path.join(import.meta.dirname, "crash-writer.ts"), log],
      { stdio: ["ignore", "ignore", "inherit"] },
    );
    let exitCode: number | null | undefined;
    const exited = new Promise<void>((r) =>
      child.on("exit", (code) => {
        exitCode = code;
        r();
      }),
    );
    // Kill only once the writer has provably made progress (lines on disk, at least one
    // rotation), however slow a loaded machine makes its start: a wall-clock sleep is not proof.
    const deadline = Date.now() + 45_000;
    for (;;) {
      if (exitCode !== undefined) throw new Error(`writer exited early (${exitCode})`);
      const seen = await linesOnDisk(log);
      if (seen.lines >= MIN_LINES && seen.segments > 0) break;
      if (Date.now() > deadline)
        throw new Error(`writer made too little progress: ${JSON.stringify(seen)}`);
      await new Promise((r) => setTimeout(r, 25));
    }
    child.kill("SIGKILL");
    await exited;

    const report = await verifyAudit({ log });
    const reasons = report.breaks.map((b) => b.reason);
    expect(reasons.length).toBeLessThanOrEqual(1);
    for (const r of reasons) expect(r).toBe("truncated last line");
    expect(report.valid).toBeGreaterThanOrEqual(MIN_LINES);
    expect(report.segmentsRetained).toBeGreaterThan(0);
    // Every unmatched attempt is a call that was in flight (at most one per caller).
    expect(report.incomplete).toBeLessThanOrEqual(16);

    const sink = await openAuditSink({ path: log, mode: "required" });
    await appendPairs(sink, 1, "after");
    await sink.close();
    expect(await verifyAudit({ log })).toMatchObject({ ok: true, incomplete: report.incomplete });
  }, 60_000);
});
