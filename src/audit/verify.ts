/**
 * Offline verification of a log and its archive (D119): reads files only, never a server.
 * Order: the archived segments (checkpoint index ∪ files present, by name), then the live log.
 * A segment retention deleted is crossed using its checkpoint entry (reported checkpoint-only).
 */
import * as fs from "node:fs/promises";
import path from "node:path";
import {
  type AnyAuditEntry,
  ChainChecker,
  type ChainCounts,
  type FormatRange,
  SIG_BATCH,
  type VerifyBreak,
} from "./chain-check.js";
import {
  type CheckpointIndex,
  type CheckpointSegment,
  defaultArchiveDir,
  indexFileName,
  indexSignatureValid,
  parseIndex,
  segmentSeq,
} from "./checkpoint.js";
import { type AuditVerifier, createVerifier, publicKeySpki } from "./entry.js";
import {
  GO_INDEX_FILE,
  type GoCheckpoint,
  type GoCheckpointIndex,
  goIndexSignatureValid,
  isGoSegmentName,
  parseGoIndex,
} from "./go-archive.js";
import { readLineBatches } from "./read-lines.js";
import { createSignaturePool, type SignaturePool } from "./sig-pool.js";

export type { AnyAuditEntry, BreakReason, FormatRange, VerifyBreak } from "./chain-check.js";

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
  /** The line formats read (ours, Go v2, Go D18), per file and line range, in chain order. */
  formats: FormatRange[];
}

/** A usage problem (missing log, bad key): the CLI maps it to exit code 2. */
export class AuditUsageError extends Error {
  override name = "AuditUsageError";
}

export async function verifyAudit(
  opts: VerifyOptions,
  onEntry?: (entry: AnyAuditEntry) => void,
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
  onEntry: ((entry: AnyAuditEntry) => void) | undefined,
): Promise<VerifyReport & { checkpointOnly: CheckpointSegment[] }> {
  const archiveDir = opts.archiveDir ?? defaultArchiveDir(opts.log);
  const checker = new ChainChecker(verifier, onEntry, pool);
  const index = await loadIndex(archiveDir, opts.log, checker, verifier);
  const byName = new Map(index?.segments.map((s) => [s.segment, s]) ?? []);
  const inArchive = await readdirOrEmpty(archiveDir);
  const present = inArchive.filter((n) => segmentSeq(opts.log, n) !== undefined);
  const names = [...new Set([...byName.keys(), ...present])].sort();
  // A log the Go implementation rotated: its segments come first (go-archive.ts).
  const goIndex = await loadGoIndex(archiveDir, checker, opts.publicKeyHex);
  const goByName = new Map(goIndex?.segments.map((s) => [s.name, s]) ?? []);
  const goPresent = new Set(inArchive.filter(isGoSegmentName));
  const goNames = [...new Set([...goByName.keys(), ...goPresent])].sort();
  // Between a rotation's rename and the new file's creation the live log is briefly absent (a
  // crash in that window leaves it so): the archive alone is then the whole chain.
  const liveExists = await isFile(opts.log);
  if (!liveExists && names.length === 0 && goNames.length === 0) {
    throw new AuditUsageError(`audit log ${opts.log} does not exist or is not a file`);
  }
  const presentSet = new Set(present);
  const checkpointOnly: CheckpointSegment[] = [];
  let retained = 0;
  for (const name of goNames) {
    const entry = goByName.get(name);
    const file = path.join(archiveDir, name);
    if (goPresent.has(name)) {
      retained++;
      const facts = await checkFile(file, checker);
      if (entry) compareGoCheckpoint(entry, facts, file, checker);
    } else if (entry) {
      checkpointOnly.push(asCheckpointSegment(entry));
      crossDeletedGoSegment(entry, file, checker, goIndex, verifier);
    }
  }
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
    [...goNames, ...names]
      .map((n) => path.join(archiveDir, n))
      .concat(opts.log)
      .map((f, i) => [f, i]),
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
    formats: checker.formats,
    checkpointOnly,
  };
}

interface FileFacts {
  count: number;
  first?: AnyAuditEntry;
  last?: AnyAuditEntry;
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

/** A retained Go segment must match its Go checkpoint (count, first, last, link). */
function compareGoCheckpoint(
  cp: GoCheckpoint,
  facts: FileFacts,
  file: string,
  checker: ChainChecker,
): void {
  compareCheckpoint(asCheckpointSegment(cp), facts, file, checker);
}

function asCheckpointSegment(cp: GoCheckpoint): CheckpointSegment {
  return {
    segment: cp.name,
    count: cp.count,
    first_hash: cp.first_hash,
    last_hash: cp.last_hash,
    prev_hash: cp.prev_hash,
    last_timestamp: cp.end,
    open_attempts: [],
  };
}

/** A Go segment retention deleted: crossed with its checkpoint; its attempts are unknown. */
function crossDeletedGoSegment(
  cp: GoCheckpoint,
  file: string,
  checker: ChainChecker,
  index: GoCheckpointIndex | undefined,
  verifier: AuditVerifier | undefined,
): void {
  if (verifier && index?.sig === undefined) {
    checker.addBreak({
      file,
      line: 0,
      reason: "missing checkpoint signature",
      detail: "Go segment is checkpoint-only",
    });
  }
  if (checker.prev !== null && cp.prev_hash !== checker.prev) {
    checker.addBreak({
      file,
      line: 0,
      reason: "broken link",
      detail: "checkpoint-only Go segment does not link",
    });
  }
  checker.prev = cp.last_hash;
  checker.goAttemptsUnknown = true;
}

/** Go's `checkpoints.json`, when there is one; a bad one or a bad signature is a break. */
async function loadGoIndex(
  archiveDir: string,
  checker: ChainChecker,
  publicKeyHex: string | undefined,
): Promise<GoCheckpointIndex | undefined> {
  const file = path.join(archiveDir, GO_INDEX_FILE);
  let index: GoCheckpointIndex;
  try {
    index = parseGoIndex(await fs.readFile(file, "utf8"));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    checker.addBreak({ file, line: 0, reason: "unreadable file", detail: (err as Error).message });
    return undefined;
  }
  if (publicKeyHex !== undefined && index.sig !== undefined) {
    if (!goIndexSignatureValid(index, publicKeyHex))
      checker.addBreak({ file, line: 0, reason: "bad checkpoint signature" });
  } else if (publicKeyHex !== undefined && index.segments.some((s) => s.signing_required)) {
    checker.addBreak({ file, line: 0, reason: "missing checkpoint signature" });
  }
  return index;
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
