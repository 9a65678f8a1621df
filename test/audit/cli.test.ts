import * as fs from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runAuditExport, runAuditVerify } from "../../src/audit/cli.js";
import { openAuditSink } from "../../src/audit/sink.js";
import { appendPairs, record, SEED, tempDir } from "./helpers.js";

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

let dir: string | undefined;
afterEach(async () => {
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

async function makeLog(): Promise<{ log: string; pub: string }> {
  dir = await tempDir();
  const log = path.join(dir, "audit.jsonl");
  const sink = await openAuditSink({ path: log, mode: "required", keySeedHex: SEED });
  await appendPairs(sink, 2);
  await sink.append(record("dangling"));
  await sink.close();
  return { log, pub: sink.publicKeyHex as string };
}

describe("audit CLI", () => {
  it("verify prints counts and `audit: chain verified`, exit 0; notes unchecked signatures", async () => {
    const { log, pub } = await makeLog();
    const a = capture();
    expect(await runAuditVerify({ log, publicKey: pub }, a.io)).toBe(0);
    expect(a.out.stdout).toContain("valid: 5");
    expect(a.out.stdout).toContain("signed: 5\n");
    expect(a.out.stdout).toContain("incomplete: 1");
    expect(a.out.stdout).toContain("audit: chain verified");
    const b = capture();
    expect(await runAuditVerify({ log }, b.io)).toBe(0);
    expect(b.out.stdout).toContain("signatures not checked");
  });

  it("verify exits 1 naming file, line and reason; 2 on usage errors", async () => {
    const { log, pub } = await makeLog();
    const ls = (await fs.readFile(log, "utf8")).split("\n");
    ls[1] = (ls[1] as string).replace('"tok-ops"', '"tok-evil"');
    await fs.writeFile(log, ls.join("\n"));
    const a = capture();
    expect(await runAuditVerify({ log, publicKey: pub }, a.io)).toBe(1);
    expect(a.out.stderr).toContain(`${log}:2: hash mismatch`);
    expect(await runAuditVerify({}, capture().io)).toBe(2);
    expect(
      await runAuditVerify({ log: path.join(dir as string, "missing.jsonl") }, capture().io),
    ).toBe(2);
    expect(await runAuditVerify({ log, publicKey: "nothex" }, capture().io)).toBe(2);
  });

  it("export writes a JSON report of a verified chain, and writes nothing for a broken one", async () => {
    const { log, pub } = await makeLog();
    const out = path.join(dir as string, "report.json");
    expect(await runAuditExport({ log, out, publicKey: pub }, capture().io)).toBe(0);
    const doc = JSON.parse(await fs.readFile(out, "utf8"));
    expect(doc.events).toHaveLength(5);
    expect(doc.counts).toMatchObject({ valid: 5, incomplete: 1 });
    await fs.rm(out);
    await fs.appendFile(log, "garbage\n");
    const c = capture();
    expect(await runAuditExport({ log, out }, c.io)).toBe(1);
    expect(c.out.stderr).toContain("nothing was written");
    await expect(fs.stat(out)).rejects.toThrow();
    const d = capture();
    expect(await runAuditExport({ log }, d.io)).toBe(1);
    expect(d.out.stdout).toBe("");
  });
});

describe("audit verify names each break kind as FILE:LINE: reason, exit 1", () => {
  /** A signed 5-line log, edited by `edit` (array of lines without the final newline). */
  async function broken(edit: (ls: string[]) => string[] | string): Promise<string> {
    const { log } = await makeLog();
    const ls = (await fs.readFile(log, "utf8")).trimEnd().split("\n");
    const next = edit(ls);
    await fs.writeFile(log, typeof next === "string" ? next : `${next.join("\n")}\n`);
    return log;
  }
  const reparse = (line: string, change: (e: Record<string, unknown>) => void) => {
    const e = JSON.parse(line) as Record<string, unknown>;
    change(e);
    return JSON.stringify(e);
  };
  const cases: [string, (ls: string[]) => string[] | string, number, string][] = [
    ["hash mismatch", (ls) => ls.map((l, i) => (i === 2 ? l.replace("r1", "r9") : l)), 3, ""],
    [
      "broken link",
      (ls) => [ls[0], ls[2], ls[3], ls[4]] as string[],
      2,
      " (prev_hash does not match the previous entry's hash)",
    ],
    [
      "bad signature",
      (ls) => ls.map((l, i) => (i === 1 ? reparse(l, (e) => (e.sig = "0".repeat(128))) : l)),
      2,
      "",
    ],
    [
      "missing signature",
      (ls) => ls.map((l, i) => (i === 3 ? reparse(l, (e) => delete e.sig) : l)),
      4,
      "",
    ],
    ["truncated last line", (ls) => ls.join("\n"), 5, ""],
    [
      "malformed entry",
      (ls) => ls.map((l, i) => (i === 4 ? l.replace('"version":1', '"version":1e400') : l)),
      5,
      " (unsupported version)",
    ],
    [
      "malformed entry",
      (ls) => ls.map((l, i) => (i === 4 ? l.replace('"kb":', '"x":1e400,"kb":') : l)),
      5,
      " (a number is out of range)",
    ],
  ];
  for (const [reason, edit, line, detail] of cases) {
    it(`${reason}${detail}`, async () => {
      const log = await broken(edit);
      const a = capture();
      expect(await runAuditVerify({ log, publicKey: (await pubOf()) as string }, a.io)).toBe(1);
      expect(a.out.stderr).toContain(`audit: ${log}:${line}: ${reason}${detail}\n`);
      expect(a.out.stderr).toMatch(/chain NOT verified/);
      expect(a.out.stdout).not.toContain("chain verified");
    });
  }

  it("duplicate id and completion without attempt (hashes recomputed: only those rules fire)", async () => {
    dir = await tempDir();
    const log = path.join(dir, "audit.jsonl");
    const { chainEntry, GENESIS } = await import("../../src/audit/entry.js");
    const base = {
      version: 1,
      timestamp: "2025-01-01T00:00:00.000Z",
      principal_id: "p",
      transport: "http" as const,
      kb: "k",
      tool: "concept_read",
      read_only: true,
      resources: {},
    };
    const a = chainEntry({ ...base, id: "same", phase: "attempt", request_id: "q1" }, GENESIS);
    const b = chainEntry({ ...base, id: "same", phase: "attempt", request_id: "q2" }, a.hash);
    const c = chainEntry({ ...base, id: "c", phase: "completion", request_id: "q3" }, b.hash);
    await fs.writeFile(log, `${[a, b, c].map((e) => JSON.stringify(e)).join("\n")}\n`);
    const out = capture();
    expect(await runAuditVerify({ log }, out.io)).toBe(1);
    expect(out.out.stderr).toContain(`audit: ${log}:2: duplicate id (same)\n`);
    expect(out.out.stderr).toContain(`audit: ${log}:3: completion without attempt (q3)\n`);
  });
});

async function pubOf(): Promise<string> {
  const { publicKeyFromSeed } = await import("../../src/audit/entry.js");
  return publicKeyFromSeed(SEED);
}
