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
