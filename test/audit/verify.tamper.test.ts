/**
 * Tampering is detected: random single-byte edits, line deletions, reorders and insertions.
 * The only edits allowed to pass are provably harmless: the file still parses to the very same
 * entries (same canonical bytes, hash and sig). Deleting the newest line(s) of the live log is
 * the one removal no chain can see without an external anchor (docs/audit.md): not generated.
 */
import * as fs from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { canonicalize } from "../../src/audit/entry.js";
import { openAuditSink } from "../../src/audit/sink.js";
import { verifyAudit } from "../../src/audit/verify.js";
import { appendPairs, SEED, tempDir } from "./helpers.js";

let dir: string;
let log: string;
let original: Buffer;
let publicKeyHex: string;

/** Deterministic PRNG (mulberry32) so a failure reproduces. */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function sameEntries(a: Buffer, b: Buffer): boolean {
  const norm = (buf: Buffer) => {
    try {
      return buf
        .toString("utf8")
        .split("\n")
        .filter((l) => l !== "")
        .map((l) => {
          const e = JSON.parse(l);
          return `${canonicalize(e)}|${e.hash}|${e.sig}`;
        })
        .join("\n");
    } catch {
      return null;
    }
  };
  const na = norm(a);
  return na !== null && na === norm(b);
}

async function detected(bytes: Buffer): Promise<boolean> {
  await fs.writeFile(log, bytes);
  const report = await verifyAudit({ log, publicKeyHex });
  return !report.ok;
}

beforeAll(async () => {
  dir = await tempDir();
  log = path.join(dir, "audit.jsonl");
  const sink = await openAuditSink({ path: log, mode: "required", keySeedHex: SEED });
  publicKeyHex = sink.publicKeyHex as string;
  await appendPairs(sink, 6);
  await sink.close();
  original = await fs.readFile(log);
  expect((await verifyAudit({ log, publicKeyHex })).ok).toBe(true);
});
afterAll(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

function lines(): string[] {
  return original.toString("utf8").trimEnd().split("\n");
}
const join = (ls: string[]) => Buffer.from(`${ls.join("\n")}\n`);

describe("tampering is detected", () => {
  it("500 random single-byte edits: each detected or provably harmless", async () => {
    const rand = rng(42);
    let harmless = 0;
    for (let i = 0; i < 500; i++) {
      const edited = Buffer.from(original);
      const at = Math.floor(rand() * edited.length);
      let byte = Math.floor(rand() * 256);
      if (byte === edited[at]) byte = (byte + 1) % 256;
      edited[at] = byte;
      if (!(await detected(edited))) {
        expect(sameEntries(edited, original), `undetected edit at byte ${at} -> ${byte}`).toBe(
          true,
        );
        harmless++;
      }
    }
    expect(harmless).toBeLessThan(500);
  });

  it("every deletion of a line other than the newest is detected", async () => {
    const ls = lines();
    for (let i = 0; i < ls.length - 1; i++) {
      expect(await detected(join(ls.filter((_, j) => j !== i))), `deleting line ${i + 1}`).toBe(
        true,
      );
    }
  });

  it("every swap of two lines is detected", async () => {
    const ls = lines();
    for (let i = 0; i < ls.length; i++) {
      for (let j = i + 1; j < ls.length; j += 3) {
        const swapped = [...ls];
        [swapped[i], swapped[j]] = [swapped[j] as string, swapped[i] as string];
        expect(await detected(join(swapped)), `swapping ${i + 1} and ${j + 1}`).toBe(true);
      }
    }
  });

  it("insertions (a duplicated line, a forged line, a blank line) are detected", async () => {
    const ls = lines();
    const forged = JSON.stringify({ ...JSON.parse(ls[3] as string), id: "forged" });
    for (let at = 0; at <= ls.length; at++) {
      for (const extra of [ls[Math.max(0, at - 1)] as string, forged, ""]) {
        const inserted = [...ls.slice(0, at), extra, ...ls.slice(at)];
        expect(await detected(join(inserted)), `inserting at ${at}`).toBe(true);
      }
    }
  });

  it("a wrong public key fails verification", async () => {
    await fs.writeFile(log, original);
    const report = await verifyAudit({ log, publicKeyHex: "ab".repeat(32) });
    expect(report.ok).toBe(false);
    expect(report.breaks[0]?.reason).toBe("bad signature");
  });
});
