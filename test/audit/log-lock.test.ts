import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import * as fs from "node:fs/promises";
import { hostname } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { auditLockPath } from "../../src/audit/log-lock.js";
import { openAuditSink } from "../../src/audit/sink.js";
import { verifyAudit } from "../../src/audit/verify.js";
import { isKbError } from "../../src/common/errors.js";
import { memoryLogger } from "../../src/logger.js";
import { appendPairs, tempDir } from "./helpers.js";

const dirs: string[] = [];
const children: ChildProcess[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill("SIGKILL");
  for (const d of dirs.splice(0)) await fs.rm(d, { recursive: true, force: true });
});

async function logPath(): Promise<string> {
  const d = await tempDir();
  dirs.push(d);
  return path.join(d, "audit.jsonl");
}

/** Spawns a process holding an audit sink on `log`; resolves once it has appended. */
function holder(log: string): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", path.join(import.meta.dirname, "log-holder.ts"), log],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  children.push(child);
  return new Promise((resolve, reject) => {
    child.stdout?.once("data", (d: Buffer) =>
      d.toString().startsWith("open") ? resolve(child) : reject(new Error(d.toString())),
    );
    child.once("exit", (code) => reject(new Error(`holder exited with ${code}`)));
  });
}

describe("audit log lock (one process per log)", () => {
  it("a second process appending to the same log is refused at open, naming the holder", async () => {
    const log = await logPath();
    const child = await holder(log);
    const err = await openAuditSink({ path: log, mode: "best_effort" }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(isKbError(err, "locked")).toBe(true);
    expect((err as Error).message).toContain(
      `is in use by another cartographer process: pid ${child.pid} on host ${hostname()} (audit since`,
    );
    // Nothing was appended by the refused opener: the child's one line only.
    expect((await fs.readFile(log, "utf8")).trim().split("\n")).toHaveLength(1);
  });

  it("after SIGKILL of the holder a new sink takes over (warning) and continues the chain", async () => {
    const log = await logPath();
    const child = await holder(log);
    const gone = new Promise((r) => child.once("exit", r));
    child.kill("SIGKILL");
    await gone;
    const logger = memoryLogger();
    const sink = await openAuditSink({ path: log, mode: "required", logger });
    expect(logger.lines.join("\n")).toContain(`took over the lock of pid ${child.pid}`);
    await appendPairs(sink, 2);
    await sink.close();
    expect(existsSync(auditLockPath(log))).toBe(false);
    expect(await verifyAudit({ log })).toMatchObject({ ok: true, valid: 5 });
  });

  it("in one process: a second sink on an open log is refused; after close it opens", async () => {
    const log = await logPath();
    const first = await openAuditSink({ path: log, mode: "required" });
    await expect(openAuditSink({ path: log, mode: "required" })).rejects.toThrow(
      /already holds it/,
    );
    await first.close();
    const again = await openAuditSink({ path: log, mode: "required" });
    await again.close();
  });
});
