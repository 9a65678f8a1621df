import * as fs from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { chainEntry, createSigner, entryFromRecord, GENESIS } from "../../src/audit/entry.js";
import { verifyAudit } from "../../src/audit/verify.js";
import { record, SEED, tempDir } from "./helpers.js";

let dir: string | undefined;
afterEach(async () => {
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

describe("signature checks on the worker pool (batches of 512+)", () => {
  it("checks every signature: one bad signature deep in a large log is reported at its line", async () => {
    dir = await tempDir();
    const log = path.join(dir, "audit.jsonl");
    const signer = createSigner(SEED);
    const lines: string[] = [];
    let prev = GENESIS;
    for (let i = 0; i < 1500; i++) {
      const e = chainEntry(
        entryFromRecord(record(`r${i}`, "attempt"), `id-${i}`, "2025-01-01T00:00:00.000Z"),
        prev,
        signer,
      );
      prev = e.hash;
      lines.push(JSON.stringify(e));
    }
    // Line 1201: a valid signature of a different entry (well-formed, wrong).
    const victim = JSON.parse(lines[1200] as string);
    victim.sig = JSON.parse(lines[7] as string).sig;
    lines[1200] = JSON.stringify(victim);
    await fs.writeFile(log, `${lines.join("\n")}\n`);
    const report = await verifyAudit({ log, publicKeyHex: signer.publicKeyHex });
    expect(report.breaks).toEqual([{ file: log, line: 1201, reason: "bad signature" }]);
    expect(report).toMatchObject({ valid: 1499, signed: 1499, signaturesChecked: true });
    const unchecked = await verifyAudit({ log });
    expect(unchecked).toMatchObject({ ok: true, valid: 1500, signaturesChecked: false });
  }, 30_000);
});
