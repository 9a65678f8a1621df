/**
 * Audit benchmark section: group-commit appends in `required` mode against a naive
 * one-write-one-fsync-per-append baseline (same run, same disk), and offline verify
 * throughput unsigned and signed. Prints nothing; main.ts formats the figures.
 */
import * as fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import {
  type AuditSigner,
  chainEntry,
  createSigner,
  entryFromRecord,
  GENESIS,
} from "../src/audit/entry.js";
import { openAuditSink } from "../src/audit/sink.js";
import type { AuditRecordInput } from "../src/audit/types.js";
import { verifyAudit } from "../src/audit/verify.js";

export interface AuditBenchFigures {
  /** Appends/s, `required` mode, group commit. */
  groupCommit: { c1: number; c32: number };
  /** Appends/s, one write + one fsync per append (serialized to keep the chain ordered). */
  naive: { c1: number; c32: number };
  /** groupCommit.c32 / naive.c32 (target ≥ 5). */
  speedupAt32: number;
  /** Entries/s (targets ≥ 100,000 unsigned and ≥ 15,000 signed). */
  verifyUnsigned: number;
  verifySigned: number;
  verifyEntries: { unsigned: number; signed: number };
}

const SEED = "5e".repeat(32);
const APPEND_WINDOW_MS = 1500;

function rec(i: number): AuditRecordInput {
  return {
    phase: "attempt",
    request_id: `req-${i}`,
    principal_id: "bench",
    transport: "http",
    kb: "bench",
    tool: "concept_read",
    read_only: true,
    resources: { id: `infra/node-${i % 97}` },
  };
}

/** Runs `callers` loops for a fixed window; returns completed appends per second. */
async function drive(callers: number, append: (i: number) => Promise<void>): Promise<number> {
  let n = 0;
  const until = performance.now() + APPEND_WINDOW_MS;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: callers }, async () => {
      while (performance.now() < until) await append(n++);
    }),
  );
  return Math.round(n / ((performance.now() - start) / 1000));
}

async function groupCommit(dir: string, callers: number): Promise<number> {
  const sink = await openAuditSink({
    path: path.join(dir, `gc-${callers}.jsonl`),
    mode: "required",
  });
  const rate = await drive(callers, (i) => sink.append(rec(i)));
  await sink.close();
  return rate;
}

/** The baseline: what an append looks like without batching. */
async function naive(dir: string, callers: number): Promise<number> {
  const fh = await fs.open(path.join(dir, `naive-${callers}.jsonl`), "w", 0o640);
  let prev = GENESIS;
  let size = 0;
  let tail: Promise<void> = Promise.resolve();
  const append = (i: number) => {
    const run = tail.then(async () => {
      const e = chainEntry(entryFromRecord(rec(i), `id-${i}`, new Date().toISOString()), prev);
      const buf = Buffer.from(`${JSON.stringify(e)}\n`);
      await fh.write(buf, 0, buf.length, size);
      await fh.sync();
      size += buf.length;
      prev = e.hash;
    });
    tail = run;
    return run;
  };
  const rate = await drive(callers, append);
  await fh.close();
  return rate;
}

async function writeChain(file: string, count: number, signer?: AuditSigner): Promise<void> {
  let prev = GENESIS;
  const out: string[] = [];
  const ts = new Date().toISOString();
  for (let i = 0; i < count; i++) {
    const e = chainEntry(entryFromRecord(rec(i), `id-${i}`, ts), prev, signer);
    prev = e.hash;
    out.push(`${JSON.stringify(e)}\n`);
  }
  await fs.writeFile(file, out.join(""));
}

async function verifyRate(file: string, count: number, publicKeyHex?: string): Promise<number> {
  const start = performance.now();
  const report = await verifyAudit({
    log: file,
    archiveDir: path.join(path.dirname(file), "none"),
    publicKeyHex,
  });
  const secs = (performance.now() - start) / 1000;
  if (!report.ok || report.valid !== count)
    throw new Error("audit bench: generated chain did not verify");
  return Math.round(count / secs);
}

export async function run(): Promise<AuditBenchFigures> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "cartographer-audit-bench-"));
  try {
    const groupC1 = await groupCommit(dir, 1);
    const naiveC1 = await naive(dir, 1);
    const groupC32 = await groupCommit(dir, 32);
    const naiveC32 = await naive(dir, 32);
    const unsignedN = 200_000;
    const signedN = 40_000;
    const signer = createSigner(SEED);
    await writeChain(path.join(dir, "unsigned.jsonl"), unsignedN);
    await writeChain(path.join(dir, "signed.jsonl"), signedN, signer);
    const verifyUnsigned = await verifyRate(path.join(dir, "unsigned.jsonl"), unsignedN);
    const verifySigned = await verifyRate(
      path.join(dir, "signed.jsonl"),
      signedN,
      signer.publicKeyHex,
    );
    return {
      groupCommit: { c1: groupC1, c32: groupC32 },
      naive: { c1: naiveC1, c32: naiveC32 },
      speedupAt32: Math.round((groupC32 / Math.max(1, naiveC32)) * 10) / 10,
      verifyUnsigned,
      verifySigned,
      verifyEntries: { unsigned: unsignedN, signed: signedN },
    };
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}
