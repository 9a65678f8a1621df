import * as fs from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openAuditSink } from "../../src/audit/sink.js";
import { verifyAudit } from "../../src/audit/verify.js";
import { appendPairs, SEED, tempDir } from "./helpers.js";

let dir: string | undefined;
afterEach(async () => {
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

describe("rotation and retention", () => {
  it("rotated segments keep the chain verifiable; retention deletes only checkpointed ones", async () => {
    dir = await tempDir();
    const log = path.join(dir, "audit.jsonl");
    const archive = path.join(dir, "audit-archive");
    let clock = new Date("2025-01-01T00:00:00Z");
    const opts = {
      path: log,
      mode: "required" as const,
      keySeedHex: SEED,
      maxSegmentBytes: 4096,
      now: () => clock,
    };
    const sink = await openAuditSink(opts);
    await appendPairs(sink, 20);
    await sink.close();
    const segments = (await fs.readdir(archive)).filter((n) => n.endsWith(".jsonl")).sort();
    expect(segments.length).toBeGreaterThanOrEqual(2);
    const index = JSON.parse(
      await fs.readFile(path.join(archive, "audit.checkpoints.json"), "utf8"),
    );
    expect(index.segments.map((s: { segment: string }) => s.segment)).toEqual(segments);
    expect(index.sig).toMatch(/^[0-9a-f]{128}$/);
    const pub = sink.publicKeyHex as string;
    const full = await verifyAudit({ log, publicKeyHex: pub });
    expect(full).toMatchObject({
      ok: true,
      valid: 40,
      segmentsCheckpointOnly: 0,
      segmentsRetained: segments.length,
    });

    // Thirty days later, with 7-day retention: reopening deletes the old, checkpointed segments.
    clock = new Date("2025-01-31T00:00:00Z");
    const later = await openAuditSink({ ...opts, retentionDays: 7 });
    await appendPairs(later, 1, "late");
    await later.close();
    const left = (await fs.readdir(archive)).filter((n) => n.endsWith(".jsonl"));
    expect(left.length).toBe(0);
    const report = await verifyAudit({ log, publicKeyHex: pub });
    expect(report).toMatchObject({
      ok: true,
      segmentsCheckpointOnly: segments.length,
      segmentsRetained: 0,
      incomplete: 0,
    });
    expect(report.valid + report.checkpointOnlyEntries).toBe(42);

    // The checkpoint is what vouches for deleted segments: editing it breaks verification.
    const indexFile = path.join(archive, "audit.checkpoints.json");
    const tampered = JSON.parse(await fs.readFile(indexFile, "utf8"));
    tampered.segments[0].count += 1;
    await fs.writeFile(indexFile, JSON.stringify(tampered));
    expect((await verifyAudit({ log, publicKeyHex: pub })).breaks.map((b) => b.reason)).toContain(
      "bad checkpoint signature",
    );
  });

  it("removing lines at the end of a retained segment is detected (checkpoint mismatch, broken link)", async () => {
    dir = await tempDir();
    const log = path.join(dir, "audit.jsonl");
    const archive = path.join(dir, "audit-archive");
    const sink = await openAuditSink({ path: log, mode: "required", maxSegmentBytes: 4096 });
    await appendPairs(sink, 20);
    await sink.close();
    const [first] = (await fs.readdir(archive)).filter((n) => n.endsWith(".jsonl")).sort();
    const file = path.join(archive, first as string);
    const text = await fs.readFile(file, "utf8");
    const ls = text.trimEnd().split("\n");
    await fs.writeFile(file, `${ls.slice(0, -1).join("\n")}\n`);
    const report = await verifyAudit({ log });
    expect(report.ok).toBe(false);
    expect(report.breaks.map((b) => b.reason)).toEqual(
      expect.arrayContaining(["checkpoint mismatch", "broken link"]),
    );
  });

  it("a crash between rotation's rename and the new live log leaves a chain that verifies from the archive alone", async () => {
    dir = await tempDir();
    const log = path.join(dir, "audit.jsonl");
    const sink = await openAuditSink({ path: log, mode: "required", maxSegmentBytes: 2048 });
    await appendPairs(sink, 10);
    await sink.close();
    // Simulate the window: the live log was renamed into the archive, not yet recreated.
    const archive = path.join(dir, "audit-archive");
    await fs.rename(log, path.join(archive, "audit.99999999.jsonl"));
    expect(await verifyAudit({ log })).toMatchObject({ ok: true, valid: 20, incomplete: 0 });
    await fs.rm(archive, { recursive: true });
    await expect(verifyAudit({ log })).rejects.toThrow(/does not exist or is not a file/);
  });
});
