import * as fs from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openAuditSink } from "../../src/audit/sink.js";
import { REQUIRED_MODE_REJECTION } from "../../src/audit/types.js";
import { verifyAudit } from "../../src/audit/verify.js";
import { memoryLogger } from "../../src/logger.js";
import { appendPairs, faultyIo, record, SEED, tempDir } from "./helpers.js";

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await fs.rm(d, { recursive: true, force: true });
});
async function logPath(): Promise<string> {
  const d = await tempDir();
  dirs.push(d);
  return path.join(d, "audit.jsonl");
}

describe("audit sink", () => {
  it("writes a signed chain that verifies with the key, across a reopen, with mode 0640", async () => {
    const log = await logPath();
    const sink = await openAuditSink({ path: log, mode: "required", keySeedHex: SEED });
    await appendPairs(sink, 3);
    await sink.close();
    const again = await openAuditSink({ path: log, mode: "required", keySeedHex: SEED });
    await appendPairs(again, 2, "s");
    await again.close();
    expect((await fs.stat(log)).mode & 0o777).toBe(0o640);
    const report = await verifyAudit({ log, publicKeyHex: again.publicKeyHex });
    expect(report).toMatchObject({
      ok: true,
      valid: 10,
      signed: 10,
      unsigned: 0,
      incomplete: 0,
      signaturesChecked: true,
    });
    const lines = (await fs.readFile(log, "utf8"))
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines[0].prev_hash).toBe("genesis");
    expect(lines[6].prev_hash).toBe(lines[5].hash);
  });

  it("group commit: 32 concurrent appends share far fewer fsyncs, in append order", async () => {
    const log = await logPath();
    const io = faultyIo();
    const sink = await openAuditSink({ path: log, mode: "required", io });
    const before = io.syncs;
    await Promise.all(Array.from({ length: 32 }, (_, i) => sink.append(record(`c${i}`))));
    await sink.close();
    expect(io.syncs - before).toBeLessThanOrEqual(2);
    const ids = (await fs.readFile(log, "utf8"))
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l).request_id);
    expect(ids).toEqual(Array.from({ length: 32 }, (_, i) => `c${i}`));
    expect((await verifyAudit({ log })).ok).toBe(true);
  });

  it("required mode: a failed append rejects with the exact message, stays unhealthy, rolls back, recovers", async () => {
    const log = await logPath();
    const io = faultyIo();
    const logger = memoryLogger();
    const sink = await openAuditSink({ path: log, mode: "required", io, logger });
    await appendPairs(sink, 1);
    const goodSize = (await fs.stat(log)).size;
    io.fail.write = true;
    let handlerRan = false;
    const call = sink.append(record("x")).then(() => {
      handlerRan = true;
    });
    await expect(call).rejects.toThrow(REQUIRED_MODE_REJECTION);
    expect(handlerRan).toBe(false);
    expect(sink.healthy()).toBe(false);
    expect((await fs.stat(log)).size).toBe(goodSize);
    io.fail.write = false;
    io.fail.sync = true;
    await expect(sink.append(record("y"))).rejects.toThrow(REQUIRED_MODE_REJECTION);
    expect(sink.healthy()).toBe(false);
    expect((await fs.stat(log)).size).toBe(goodSize);
    expect(logger.lines.filter((l) => l.startsWith("error")).length).toBe(1);
    io.fail.sync = false;
    await sink.append(record("z"));
    expect(sink.healthy()).toBe(true);
    await sink.append(record("z", "completion"));
    await sink.close();
    expect(await verifyAudit({ log })).toMatchObject({ ok: true, valid: 4, incomplete: 0 });
  });

  it("best_effort mode: failures resolve, are counted and logged once per burst, chain stays valid", async () => {
    const log = await logPath();
    const io = faultyIo();
    const logger = memoryLogger();
    const sink = await openAuditSink({ path: log, mode: "best_effort", io, logger });
    await appendPairs(sink, 1);
    io.fail.sync = true;
    await sink.append(record("lost"));
    await sink.append(record("lost2"));
    expect(sink.dropped()).toBe(2);
    expect(sink.healthy()).toBe(false);
    io.fail.sync = false;
    // The completion of a dropped attempt is dropped too, so the log never shows a lone completion.
    await sink.append(record("lost", "completion"));
    expect(sink.dropped()).toBe(3);
    await appendPairs(sink, 1, "after");
    expect(sink.healthy()).toBe(true);
    await sink.close();
    expect(logger.lines.filter((l) => l.startsWith("error")).length).toBe(1);
    expect(await verifyAudit({ log })).toMatchObject({ ok: true, valid: 4 });
  });

  it("an unopenable log leaves the sink unhealthy in required mode until it can open again", async () => {
    const log = await logPath();
    const io = faultyIo();
    io.fail.open = true;
    const sink = await openAuditSink({ path: log, mode: "required", io });
    expect(sink.healthy()).toBe(false);
    await expect(sink.append(record("a"))).rejects.toThrow(REQUIRED_MODE_REJECTION);
    io.fail.open = false;
    await sink.append(record("a"));
    expect(sink.healthy()).toBe(true);
    await sink.close();
  });

  it("on open, a torn last line is cut and the chain resumes from the last good line", async () => {
    const log = await logPath();
    const sink = await openAuditSink({ path: log, mode: "required" });
    await appendPairs(sink, 2);
    await sink.close();
    await fs.appendFile(log, '{"version":1,"id":"torn');
    expect((await verifyAudit({ log })).breaks.map((b) => b.reason)).toEqual([
      "truncated last line",
    ]);
    const again = await openAuditSink({ path: log, mode: "required" });
    await appendPairs(again, 1, "n");
    await again.close();
    expect(await verifyAudit({ log })).toMatchObject({ ok: true, valid: 6 });
  });

  it("refuses to resume a log whose last complete line is not an entry", async () => {
    const log = await logPath();
    await fs.writeFile(log, "not json\n");
    await expect(openAuditSink({ path: log, mode: "best_effort" })).rejects.toThrow(/audit verify/);
  });
});
