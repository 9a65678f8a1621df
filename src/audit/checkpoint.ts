/**
 * Segment naming and the checkpoint index (D119): the record of every rotated segment that
 * lets verification cross a segment retention has deleted. Pure: no file access.
 */
import path from "node:path";
import {
  type AuditSigner,
  type AuditVerifier,
  canonicalJson,
  GENESIS,
  sha256Hex,
} from "./entry.js";

export interface CheckpointSegment {
  /** File name inside the archive directory. */
  segment: string;
  count: number;
  first_hash: string;
  last_hash: string;
  /** prev_hash of the segment's first entry: the link to the previous segment's last_hash. */
  prev_hash: string;
  last_timestamp: string;
  /** request_ids attempted but not completed by the end of this segment (cumulative). */
  open_attempts: string[];
}

export interface CheckpointIndex {
  version: 1;
  /** Base name of the live log the segments were rotated from. */
  log: string;
  segments: CheckpointSegment[];
  /** Ed25519 signature (hex) of sha256(canonicalJson(index without sig)) as ASCII hex. */
  sig?: string;
}

export function defaultArchiveDir(logPath: string): string {
  return path.join(path.dirname(logPath), "audit-archive");
}

function logStem(logPath: string): string {
  const base = path.basename(logPath);
  return base.endsWith(".jsonl") ? base.slice(0, -".jsonl".length) : base;
}

export function indexFileName(logPath: string): string {
  return `${logStem(logPath)}.checkpoints.json`;
}

/** Zero-padded so that name order is chain order. */
export function segmentFileName(logPath: string, seq: number): string {
  return `${logStem(logPath)}.${String(seq).padStart(8, "0")}.jsonl`;
}

/** The sequence number of a segment file of this log, or undefined for any other name. */
export function segmentSeq(logPath: string, name: string): number | undefined {
  const stem = `${logStem(logPath)}.`;
  if (!name.startsWith(stem) || !name.endsWith(".jsonl")) return undefined;
  const middle = name.slice(stem.length, -".jsonl".length);
  return /^\d{8,}$/.test(middle) ? Number(middle) : undefined;
}

export function emptyIndex(logPath: string): CheckpointIndex {
  return { version: 1, log: path.basename(logPath), segments: [] };
}

export function indexHash(index: CheckpointIndex): string {
  const { sig: _sig, ...rest } = index;
  return sha256Hex(canonicalJson(rest));
}

export function signIndex(
  index: CheckpointIndex,
  signer: AuditSigner | undefined,
): CheckpointIndex {
  const { sig: _sig, ...rest } = index;
  return signer ? { ...rest, sig: signer.sign(indexHash(rest)) } : rest;
}

export function indexSignatureValid(index: CheckpointIndex, verifier: AuditVerifier): boolean {
  return typeof index.sig === "string" && verifier.verify(indexHash(index), index.sig);
}

/** Parses an index file; throws with the reason when it is not one. */
export function parseIndex(text: string): CheckpointIndex {
  const value = JSON.parse(text) as CheckpointIndex;
  if (
    value === null ||
    typeof value !== "object" ||
    value.version !== 1 ||
    !Array.isArray(value.segments)
  ) {
    throw new Error("not a version-1 checkpoint index");
  }
  return value;
}

export interface SegmentLineFacts {
  hash: string;
  prev_hash: string;
  timestamp: string;
  phase: string;
  request_id: string;
}

/** Summarizes a segment's entries, carrying the open attempts from the segments before it. */
export function summarizeSegment(
  segment: string,
  entries: SegmentLineFacts[],
  openBefore: readonly string[],
  prevHashBefore: string,
): CheckpointSegment {
  const open = new Set(openBefore);
  for (const e of entries) {
    if (e.phase === "attempt") open.add(e.request_id);
    else open.delete(e.request_id);
  }
  const first = entries[0];
  const last = entries[entries.length - 1];
  return {
    segment,
    count: entries.length,
    first_hash: first?.hash ?? prevHashBefore,
    last_hash: last?.hash ?? prevHashBefore,
    prev_hash: first?.prev_hash ?? prevHashBefore,
    last_timestamp: last?.timestamp ?? "",
    open_attempts: [...open],
  };
}

/** The hash the next segment must link to, given the index. */
export function indexHead(index: CheckpointIndex): string {
  return index.segments[index.segments.length - 1]?.last_hash ?? GENESIS;
}
