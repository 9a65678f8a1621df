/**
 * The Go implementation's rotated segments and checkpoint index, in the same archive directory
 * (default `<dir of log>/audit-archive`, as here), so a log Go rotated verifies here and this
 * server's sink continues its chain (docs/decisions.md "Go's archived segments").
 *
 *   segments  `<UTC time>.<seq>.jsonl`, e.g. 20260101T120000.000000000Z.000001.jsonl — name order
 *             is chain order, and they all precede this server's `<log>.NNNNNNNN.jsonl` segments
 *   index     `checkpoints.json`: {version: 1, segments: [{name, start, end, count, prev_hash,
 *             first_hash, last_hash, signing_required?}], sig?}; `sig` = Ed25519 over Go's
 *             json.Marshal of {version, segments} (the index without `sig`, times as written)
 */
import { verify } from "node:crypto";
import path from "node:path";
import { type ArchiveContext, reconcileIndex } from "./archive.js";
import { indexHead } from "./checkpoint.js";
import { GENESIS, isHashHex, isSigHex, publicKeySpki, SHAPE } from "./entry.js";
import { goJsonString } from "./go-format.js";
import { segmentFacts } from "./lines.js";

export const GO_INDEX_FILE = "checkpoints.json";
const GO_SEGMENT = /^\d{8}T\d{6}\.\d{9}Z\.\d{6,}\.jsonl$/;

export interface GoCheckpoint {
  name: string;
  start: string;
  end: string;
  count: number;
  prev_hash: string;
  first_hash: string;
  last_hash: string;
  signing_required?: boolean;
}

export interface GoCheckpointIndex {
  version: 1;
  segments: GoCheckpoint[];
  sig?: string;
}

export function isGoSegmentName(name: string): boolean {
  return GO_SEGMENT.test(name);
}

/** Parses `checkpoints.json`; throws with the reason when it is not a Go version-1 index. */
export function parseGoIndex(text: string): GoCheckpointIndex {
  const v = JSON.parse(text) as GoCheckpointIndex;
  if (v === null || typeof v !== "object" || v.version !== 1)
    throw new Error("not a Go version-1 checkpoint index");
  const segments = v.segments ?? [];
  if (!Array.isArray(segments)) throw new Error("segments is not a list");
  for (const [i, cp] of segments.entries()) {
    const problem = checkpointProblem(cp);
    if (problem) throw new Error(`segment ${i}: ${problem}`);
  }
  if (v.sig !== undefined && !isSigHex(v.sig)) throw new Error(SHAPE.sig);
  return { ...v, segments };
}

function checkpointProblem(cp: GoCheckpoint): string | undefined {
  if (cp === null || typeof cp !== "object") return "not an object";
  if (typeof cp.name !== "string" || !isGoSegmentName(cp.name)) return "name is not a Go segment";
  if (!Number.isSafeInteger(cp.count) || cp.count <= 0) return "count is not positive";
  if (typeof cp.start !== "string" || typeof cp.end !== "string") return "start/end missing";
  if (!isHashHex(cp.first_hash) || !isHashHex(cp.last_hash)) return "first/last hash missing";
  if (typeof cp.prev_hash !== "string") return "prev_hash missing";
  return undefined;
}

/** The bytes Go signed: json.Marshal of {version, segments}. */
export function goIndexBytes(index: GoCheckpointIndex): string {
  const s = goJsonString;
  const segments = index.segments.map(
    (c) =>
      `{"name":${s(c.name)},"start":${s(c.start)},"end":${s(c.end)},"count":${c.count}` +
      `,"prev_hash":${s(c.prev_hash)},"first_hash":${s(c.first_hash)},"last_hash":${s(c.last_hash)}` +
      `${c.signing_required ? ',"signing_required":true' : ""}}`,
  );
  return `{"version":${index.version},"segments":[${segments.join(",")}]}`;
}

export function goIndexSignatureValid(index: GoCheckpointIndex, publicKeyHex: string): boolean {
  if (index.sig === undefined) return false;
  return verify(
    null,
    Buffer.from(goIndexBytes(index), "utf8"),
    { key: publicKeySpki(publicKeyHex), format: "der", type: "spki" },
    Buffer.from(index.sig, "hex"),
  );
}

/**
 * The hash this server's first entry must link to when it takes over a log Go rotated: the last
 * Go segment's last hash (from the index, else from the newest Go segment file). Undefined when
 * the archive holds nothing of Go's.
 */
export async function goArchiveHead(ctx: ArchiveContext): Promise<string | undefined> {
  const indexFile = path.join(ctx.archiveDir, GO_INDEX_FILE);
  let fromIndex: GoCheckpoint | undefined;
  if (await ctx.io.exists(indexFile)) {
    const index = parseGoIndex((await ctx.io.readFile(indexFile)).toString("utf8"));
    fromIndex = index.segments[index.segments.length - 1];
  }
  const names = (await ctx.io.readdir(ctx.archiveDir)).filter(isGoSegmentName).sort();
  const newest = names[names.length - 1];
  if (newest && (!fromIndex || newest > fromIndex.name)) {
    const facts = segmentFacts(await ctx.io.readFile(path.join(ctx.archiveDir, newest)));
    const last = facts[facts.length - 1];
    if (last) return last.hash;
  }
  return fromIndex?.last_hash;
}

/** Where an empty live log's chain resumes: our last segment, else Go's, else genesis. */
export async function archiveHead(ctx: ArchiveContext): Promise<string> {
  const index = await reconcileIndex(ctx);
  if (index.segments.length > 0) return indexHead(index);
  return (await goArchiveHead(ctx)) ?? GENESIS;
}
