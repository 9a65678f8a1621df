/**
 * Offline verification of a log and its archive (D119): reads files only, never a server.
 * Order: the archived segments (checkpoint index ∪ files present, by name), then the live log.
 * A segment retention deleted is crossed using its checkpoint entry (reported checkpoint-only).
 */
import * as fs from "node:fs/promises";
import path from "node:path";
import { ChainChecker, type ChainCounts, SIG_BATCH, type VerifyBreak } from "./chain-check.js";
import {
  type CheckpointIndex,
  type CheckpointSegment,
  defaultArchiveDir,
  indexFileName,
  indexSignatureValid,
  parseIndex,
  segmentSeq,
} from "./checkpoint.js";
import { type AuditEntry, type AuditVerifier, createVerifier, publicKeySpki } from "./entry.js";
import { readLineBatches } from "./read-lines.js";
import { createSignaturePool, type SignaturePool } from "./sig-pool.js";

export type { BreakReason, VerifyBreak } from "./chain-check.js";

export interface VerifyOptions {
  log: string;
  /** Default `<dir of log>/audit-archive`. */
  archiveDir?: string;
  /** Raw Ed25519 public key, 64 hex; without it signatures are not checked. */
  publicKeyHex?: string;
}

export interface VerifyReport extends ChainCounts {
  ok: boolean;
  /** False without a public key: `signed` then counts entries carrying a sig, unchecked. */
  signaturesChecked: boolean;
  /** Attempts with no completion (an interrupted or in-flight call). */
  incomplete: number;
  segmentsRetained: number;
  segmentsCheckpointOnly: number;
  checkpointOnlyEntries: number;
  /** Hash of the last entry: anchor it elsewhere to detect removal of the newest lines. */
  head: string | null;
  breaks: VerifyBreak[];
  /** Breaks beyond the first 1000, not listed. */
  breaksLeftOff: number;
}

/** A usage problem (missing log, bad key): the CLI maps it to exit code 2. */
export class AuditUsageError extends Error {
  override name = "AuditUsageError";
}

export async function verifyAudit(
  opts: VerifyOptions,
  onEntry?: (entry: AuditEntry) => void,
): Promise<VerifyReport & { checkpointOnly: CheckpointSegment[] }> {
  let verifier: AuditVerifier | undefined;
  let spki: Buffer | undefined;
  if (opts.publicKeyHex !== undefined) {
    try {
      verifier = createVerifier(opts.publicKeyHex);
      spki = publicKeySpki(opts.publicKeyHex);
    } catch (err) {
      throw new AuditUsageError((err as Error).message);
    }
  }
  const pool = spki ? createSignaturePool(spki) : undefined;
  try {
    return await verifyWith(opts, verifier, pool, onEntry);
  } finally {
    await pool?.close();
  }
}

async function verifyWith(
  opts: VerifyOptions,
  verifier: AuditVerifier | undefined,
  pool: SignaturePool | undefined,
  onEntry: ((entry: AuditEntry) => void) | undefined,
): Promise<VerifyReport & { checkpointOnly: CheckpointSegment[] }> {
  const archiveDir = opts.archiveDir ?? defaultArchiveDir(opts.log);
  const checker = new ChainChecker(verifier, onEntry, pool);
  const index = await loadIndex(archiveDir, opts.log, checker, verifier);
  const byName = new Map(index?.segments.map((s) => [s.segment, s]) ?? []);
  const present = (await readdirOrEmpty(archiveDir)).filter(
    (n) => segmentSeq(opts.log, n) !== undefined,
  );
  const names = [...new Set([...byName.keys(), ...present])].sort();
  // Between a rotation's rename and the new file's creation the live log is briefly absent (a
  // crash in that window leaves it so): the archive alone is then the whole chain.
  const liveExists = await isFile(opts.log);
  if (!liveExists && names.length === 0) {
    throw new AuditUsageError(`audit log ${opts.log} does not exist or is not a file`);
  }
  const presentSet = new Set(present);
  const checkpointOnly: CheckpointSegment[] = [];
  let retained = 0;
  for (const name of names) {
    const entry = byName.get(name);
    const file = path.join(archiveDir, name);
    if (presentSet.has(name)) {
      retained++;
      const facts = await checkFile(file, checker);
      if (entry) compareCheckpoint(entry, facts, file, checker);
    } else if (entry) {
      checkpointOnly.push(entry);
      crossDeletedSegment(entry, file, checker, index, verifier);
    }
  }
  if (liveExists) await checkFile(opts.log, checker);
  await checker.flushSignatures();
  const { breaks } = checker;
  // Signature breaks arrive late (batched); report everything in file, then line, order.
  const order = new Map(
    [...names.map((n) => path.join(archiveDir, n)), opts.log].map((f, i) => [f, i]),
  );
  const rank = (f: string) => order.get(f) ?? -1;
  breaks.sort((a, b) => rank(a.file) - rank(b.file) || a.line - b.line);
  return {
    ok: breaks.length === 0 && checker.breaksLeftOff === 0,
    ...checker.counts,
    signaturesChecked: verifier !== undefined,
    incomplete: checker.open.size,
    segmentsRetained: retained,
    segmentsCheckpointOnly: checkpointOnly.length,
    checkpointOnlyEntries: checkpointOnly.reduce((n, s) => n + s.count, 0),
    head: checker.prev,
    breaks,
    breaksLeftOff: checker.breaksLeftOff,
    checkpointOnly,
  };
}

interface FileFacts {
  count: number;
  first?: AuditEntry;
  last?: AuditEntry;
}

async function checkFile(file: string, checker: ChainChecker): Promise<FileFacts> {
  const facts: FileFacts = { count: 0 };
  try {
    for await (const batch of readLineBatches(file)) {
      for (const l of batch) {
        const e = checker.line(file, l.line, l.text, l.terminated);
        facts.count++;
        if (e) {
          facts.first ??= e;
          facts.last = e;
        }
      }
      if (checker.pendingSignatures >= SIG_BATCH) await checker.dispatchSignatures();
    }
  } catch (err) {
    checker.addBreak({ file, line: 0, reason: "unreadable file", detail: (err as Error).message });
  }
  return facts;
}

/** A retained segment must match what the index recorded (catches removed lines at its end). */
function compareCheckpoint(
  entry: CheckpointSegment,
  facts: FileFacts,
  file: string,
  checker: ChainChecker,
): void {
  const problems: string[] = [];
  if (entry.count !== facts.count)
    problems.push(`count ${facts.count} != checkpoint ${entry.count}`);
  if (facts.first && entry.first_hash !== facts.first.hash) problems.push("first hash differs");
  if (facts.first && entry.prev_hash !== facts.first.prev_hash) problems.push("link differs");
  if (facts.last && entry.last_hash !== facts.last.hash) problems.push("last hash differs");
  if (problems.length > 0)
    checker.addBreak({ file, line: 0, reason: "checkpoint mismatch", detail: problems.join("; ") });
}

function crossDeletedSegment(
  entry: CheckpointSegment,
  file: string,
  checker: ChainChecker,
  index: CheckpointIndex | undefined,
  verifier: AuditVerifier | undefined,
): void {
  if (verifier && index && index.sig === undefined) {
    checker.addBreak({
      file,
      line: 0,
      reason: "missing checkpoint signature",
      detail: "segment is checkpoint-only",
    });
  }
  if (checker.prev !== null && entry.prev_hash !== checker.prev) {
    checker.addBreak({
      file,
      line: 0,
      reason: "broken link",
      detail: "checkpoint-only segment does not link",
    });
  }
  checker.prev = entry.last_hash;
  checker.open = new Set(entry.open_attempts);
}

async function loadIndex(
  archiveDir: string,
  log: string,
  checker: ChainChecker,
  verifier: AuditVerifier | undefined,
): Promise<CheckpointIndex | undefined> {
  const file = path.join(archiveDir, indexFileName(log));
  let text: string;
  try {
    text = await fs.readFile(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    checker.addBreak({ file, line: 0, reason: "unreadable file", detail: (err as Error).message });
    return undefined;
  }
  let index: CheckpointIndex;
  try {
    index = parseIndex(text);
  } catch (err) {
    checker.addBreak({ file, line: 0, reason: "unreadable file", detail: (err as Error).message });
    return undefined;
  }
  if (verifier && index.sig !== undefined && !indexSignatureValid(index, verifier)) {
    checker.addBreak({ file, line: 0, reason: "bad checkpoint signature" });
  }
  return index;
}

async function isFile(file: string): Promise<boolean> {
  try {
    return (await fs.stat(file)).isFile();
  } catch {
    return false;
  }
}

async function readdirOrEmpty(dir: string): Promise<string[]> {
  try {
    return await fs.readdir(dir);
  } catch {
    return [];
  }
}
