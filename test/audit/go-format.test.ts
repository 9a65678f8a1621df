/**
 * Go audit logs (docs/migrating-from-go.md "Audit logs"): `audit verify` and `audit export` read
 * the Go implementation's D18 and v2 logs (generated here by an independent writer, go-log.ts), say
 * which format they read per file and line range, report tampering as file:line: reason, and verify
 * a log whose format switches at a rotation boundary (Go segments, then this server's sink carrying
 * on).
 */
import * as fs from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runAuditExport, runAuditVerify } from "../../src/audit/cli.js";
import { goJsonString, goUtcTimestamp } from "../../src/audit/go-format.js";
import { openAuditSink } from "../../src/audit/sink.js";
import { verifyAudit } from "../../src/audit/verify.js";
import {
  GO_PUBLIC_KEY,
  GO_SEED,
  GoChain,
  type GoLine,
  goCheckpointIndex,
  goPairs,
  jsonl,
} from "./go-log.js";
import { appendPairs, tempDir } from "./helpers.js";

function capture() {
  const out = { stdout: "", stderr: "" };
  return {
    out,
    io: {
      stdout: { write: (s: string) => (out.stdout += s) },
      stderr: { write: (s: string) => (out.stderr += s) },
    },
  };
}

let dir: string;
afterEach(async () => {
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

/** A Go log upgraded in place: D18 lines (unsigned, then signed), then v2 pairs. */
function upgradedGoLog(): GoLine[] {
  const chain = new GoChain();
  return [
    chain.d18(
      {
        timestamp: "2025-06-01T08:00:00Z",
        tool: "concept_write",
        args: '{"id":"a"}',
        agent_id: "x",
        outcome: "ok",
      },
      false,
    ),
    chain.d18(
      { timestamp: "2025-06-01T08:00:01.123456789Z", tool: "search", outcome: "ok" },
      false,
    ),
    chain.d18(
      { timestamp: "2025-06-01T08:00:02.5Z", tool: "concept_read", args: "<&>", outcome: "error" },
      true,
    ),
    ...goPairs(chain, 2, "u"),
  ];
}

async function writeLog(lines: GoLine[] | string): Promise<string> {
  dir = await tempDir();
  const log = path.join(dir, "audit.log");
  await fs.writeFile(log, typeof lines === "string" ? lines : jsonl(lines));
  return log;
}

describe("Go audit logs", () => {
  it("verifies a Go log upgraded in place (D18 then v2) and names the format of each line range", async () => {
    const log = await writeLog(upgradedGoLog());
    const a = capture();
    expect(await runAuditVerify({ log, publicKey: GO_PUBLIC_KEY }, a.io)).toBe(0);
    expect(a.out.stdout).toContain("valid: 7\n");
    expect(a.out.stdout).toContain("signed: 5\n");
    expect(a.out.stdout).toContain("unsigned: 2\n");
    expect(a.out.stdout).toContain(`read: ${log} lines 1-3: Go D18 (legacy)`);
    expect(a.out.stdout).toContain(`read: ${log} lines 4-7: Go v2 (D119)`);
    expect(a.out.stdout).toContain("audit: chain verified");
  });

  it("hashes Go's UTC form of the timestamp: the same instant in another zone still verifies", async () => {
    const lines = upgradedGoLog();
    (lines[0] as GoLine).timestamp = "2025-06-01T10:00:00+02:00";
    (lines[3] as GoLine).timestamp = "2026-01-01T11:00:00.250000000+01:00";
    const report = await verifyAudit({ log: await writeLog(lines), publicKeyHex: GO_PUBLIC_KEY });
    expect(report.breaks).toEqual([]);
    expect(report.ok).toBe(true);
  });

  it("tampering with a Go line fails with file:line: reason (exit 1)", async () => {
    const cases: Array<[string, (lines: GoLine[]) => void, string]> = [
      ["D18 args", (l) => ((l[0] as GoLine).args = '{"id":"b"}'), ":1: hash mismatch"],
      ["D18 outcome", (l) => ((l[2] as GoLine).outcome = "ok"), ":3: hash mismatch"],
      [
        "v2 resource",
        (l) => ((l[3] as GoLine).resources = { id: "infra/dns", note: "a<b & c>e" }),
        ":4: hash mismatch",
      ],
      ["v2 read_only", (l) => ((l[4] as GoLine).read_only = true), ":5: hash mismatch"],
      ["removed line", (l) => l.splice(1, 1), ":2: broken link"],
      [
        "signature by another key",
        (l) => ((l[5] as GoLine).sig = (l[6] as GoLine).sig),
        ":6: bad signature",
      ],
      // An unsigned Go line after signed ones is valid, as in Go (go-unsigned.test.ts).
      [
        "attempt with outcome",
        (l) => ((l[3] as GoLine).outcome = "success"),
        ":4: malformed entry",
      ],
    ];
    for (const [name, tamper, expected] of cases) {
      const lines = upgradedGoLog();
      tamper(lines);
      const log = await writeLog(lines);
      const a = capture();
      expect(await runAuditVerify({ log, publicKey: GO_PUBLIC_KEY }, a.io), name).toBe(1);
      expect(a.out.stderr, name).toContain(`${log}${expected}`);
      const b = capture();
      expect(await runAuditExport({ log, publicKey: GO_PUBLIC_KEY }, b.io), name).toBe(1);
      expect(b.out.stdout, name).toBe("");
      await fs.rm(dir, { recursive: true, force: true });
    }
  });

  it("a log that switches format at a rotation boundary verifies: Go segments, then this server", async () => {
    dir = await tempDir();
    const log = path.join(dir, "audit.log");
    const archive = path.join(dir, "audit-archive");
    await fs.mkdir(archive);
    // What the Go server left: two rotated segments, its signed checkpoint index, an empty log.
    const chain = new GoChain();
    const seg1 = {
      name: "20260101T100000.000000000Z.000001.jsonl",
      lines: goPairs(chain, 3, "g1"),
    };
    const seg2 = {
      name: "20260101T100500.000000000Z.000002.jsonl",
      lines: goPairs(chain, 2, "g2", 10),
    };
    for (const s of [seg1, seg2]) await fs.writeFile(path.join(archive, s.name), jsonl(s.lines));
    await fs.writeFile(path.join(archive, "checkpoints.json"), goCheckpointIndex([seg1, seg2]));
    await fs.writeFile(log, "");

    // This server takes over the same log and key, and rotates on its own.
    const sink = await openAuditSink({
      path: log,
      mode: "required",
      keySeedHex: GO_SEED,
      maxSegmentBytes: 1500,
    });
    await appendPairs(sink, 4);
    await sink.close();
    const ours = (await fs.readdir(archive)).filter((n) => n.startsWith("audit.log."));
    expect(ours.length).toBeGreaterThan(0);

    const a = capture();
    expect(await runAuditVerify({ log, publicKey: GO_PUBLIC_KEY }, a.io)).toBe(0);
    expect(a.out.stdout).toContain(
      `read: ${path.join(archive, seg1.name)} lines 1-6: Go v2 (D119)`,
    );
    expect(a.out.stdout).toContain(
      `read: ${path.join(archive, seg2.name)} lines 1-4: Go v2 (D119)`,
    );
    expect(a.out.stdout).toContain(`: cartographer v1 (this server)`);
    expect(a.out.stdout).toContain("valid: 18\n");

    // Export: every event, Go's first, with the formats it read.
    const out = path.join(dir, "export.json");
    expect(await runAuditExport({ log, out, publicKey: GO_PUBLIC_KEY }, capture().io)).toBe(0);
    const doc = JSON.parse(await fs.readFile(out, "utf8"));
    expect(doc.events).toHaveLength(18);
    expect(doc.events[0].version).toBe(2);
    expect(doc.events[17].version).toBe(1);
    expect(doc.formats.map((f: { format: string }) => f.format)).toEqual([
      "go-v2",
      "go-v2",
      ...ours.map(() => "cartographer-v1"),
      ...(doc.formats.length > 2 + ours.length ? ["cartographer-v1"] : []),
    ]);

    // Without the link to Go's last hash, our first entry would be a break.
    const [firstOurs] = ours.sort();
    const firstLine = JSON.parse(
      (await fs.readFile(path.join(archive, firstOurs as string), "utf8")).split("\n")[0] as string,
    );
    expect(firstLine.prev_hash).toBe(seg2.lines[seg2.lines.length - 1]?.hash);
  });

  it("this server continues a Go live log in place: one file, two line ranges, one chain", async () => {
    const log = await writeLog(upgradedGoLog());
    const sink = await openAuditSink({ path: log, mode: "required", keySeedHex: GO_SEED });
    await appendPairs(sink, 2);
    await sink.close();
    const report = await verifyAudit({ log, publicKeyHex: GO_PUBLIC_KEY });
    expect(report.breaks).toEqual([]);
    expect(report.formats).toEqual([
      { file: log, firstLine: 1, lastLine: 3, format: "go-d18" },
      { file: log, firstLine: 4, lastLine: 7, format: "go-v2" },
      { file: log, firstLine: 8, lastLine: 11, format: "cartographer-v1" },
    ]);
  });

  it("crosses a Go segment retention deleted via Go's signed checkpoint; a forged checkpoint fails", async () => {
    dir = await tempDir();
    const log = path.join(dir, "audit.log");
    const archive = path.join(dir, "audit-archive");
    await fs.mkdir(archive);
    const chain = new GoChain();
    const seg1 = {
      name: "20260101T100000.000000000Z.000001.jsonl",
      lines: goPairs(chain, 2, "d1"),
    };
    const seg2 = {
      name: "20260101T100500.000000000Z.000002.jsonl",
      lines: goPairs(chain, 2, "d2", 5),
    };
    await fs.writeFile(path.join(archive, seg2.name), jsonl(seg2.lines)); // seg1 deleted
    const index = goCheckpointIndex([seg1, seg2]);
    await fs.writeFile(path.join(archive, "checkpoints.json"), index);
    await fs.writeFile(log, jsonl(goPairs(chain, 1, "live", 20)));

    const report = await verifyAudit({ log, publicKeyHex: GO_PUBLIC_KEY });
    expect(report.breaks).toEqual([]);
    expect(report).toMatchObject({ ok: true, segmentsCheckpointOnly: 1, checkpointOnlyEntries: 4 });

    const forged = JSON.parse(index);
    forged.segments[0].count = 3;
    await fs.writeFile(path.join(archive, "checkpoints.json"), JSON.stringify(forged));
    const a = capture();
    expect(await runAuditVerify({ log, publicKey: GO_PUBLIC_KEY }, a.io)).toBe(1);
    expect(a.out.stderr).toContain(
      `${path.join(archive, "checkpoints.json")}:0: bad checkpoint signature`,
    );
  });
});

describe("Go's byte rules (go-format.ts)", () => {
  it("formats timestamps as Go's t.UTC().Format(RFC3339Nano) and refuses what Go cannot parse", () => {
    expect(goUtcTimestamp("2026-01-01T00:00:00.000Z")).toBe("2026-01-01T00:00:00Z");
    expect(goUtcTimestamp("2026-01-01T00:00:00.120Z")).toBe("2026-01-01T00:00:00.12Z");
    expect(goUtcTimestamp("2025-12-31T23:30:00.000000001-01:00")).toBe(
      "2026-01-01T00:30:00.000000001Z",
    );
    expect(goUtcTimestamp("2024-02-29T12:00:00Z")).toBe("2024-02-29T12:00:00Z");
    for (const bad of ["2026-02-29T00:00:00Z", "2026-01-01T24:00:00Z", "2026-01-01 00:00:00Z", "x"])
      expect(goUtcTimestamp(bad), bad).toBeUndefined();
  });

  it("escapes strings as Go's encoding/json does", () => {
    expect(goJsonString('a<b>&"\\\n\t\b\f\u0001\u2028é')).toBe(
      '"a\\u003cb\\u003e\\u0026\\"\\\\\\n\\t\\b\\f\\u0001\\u2028é"',
    );
  });
});
