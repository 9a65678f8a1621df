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

describe("a writer killed with SIGKILL under load", () => {
  it("leaves at most a truncated last line and unmatched attempts; the next open heals it", async () => {
    dir = await tempDir();
    const log = path.join(dir, "audit.jsonl");
    const child = spawn(
      process.execPath,
      ["--import", "tsx", path.join(import.meta.dirname, "crash-writer.ts"), log],
      {
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
    await new Promise<void>((resolve, reject) => {
      child.stdout.on("data", (d: Buffer) => d.toString().includes("ready") && resolve());
      child.on("exit", (code) => reject(new Error(`writer exited early (${code})`)));
    });
    await new Promise((r) => setTimeout(r, 150));
    const exited = new Promise((r) => child.on("exit", r));
    child.kill("SIGKILL");
    await exited;

    const report = await verifyAudit({ log });
    const reasons = report.breaks.map((b) => b.reason);
    expect(reasons.length).toBeLessThanOrEqual(1);
    for (const r of reasons) expect(r).toBe("truncated last line");
    expect(report.valid).toBeGreaterThan(200);
    expect(report.segmentsRetained).toBeGreaterThan(0);
    // Every unmatched attempt is a call that was in flight (at most one per caller).
    expect(report.incomplete).toBeLessThanOrEqual(16);

    const sink = await openAuditSink({ path: log, mode: "required" });
    await appendPairs(sink, 1, "after");
    await sink.close();
    expect(await verifyAudit({ log })).toMatchObject({ ok: true, incomplete: report.incomplete });
  }, 20_000);
});
