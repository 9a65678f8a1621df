/**
 * Rotated segments on disk: keeping the checkpoint index in step with the archive directory,
 * and deleting old segments only once the index (written atomically, signed when a key is
 * configured) covers them (D119).
 */
import path from "node:path";
import type { Logger } from "../logger.js";
import {
  type CheckpointIndex,
  emptyIndex,
  indexFileName,
  parseIndex,
  segmentFileName,
  segmentSeq,
  signIndex,
  summarizeSegment,
} from "./checkpoint.js";
import { type AuditSigner, GENESIS } from "./entry.js";
import type { AuditIo } from "./io.js";
import { segmentFacts } from "./lines.js";

export interface ArchiveContext {
  logPath: string;
  archiveDir: string;
  io: AuditIo;
  signer?: AuditSigner;
  logger: Logger;
}

export async function readIndex(ctx: ArchiveContext): Promise<CheckpointIndex> {
  const file = path.join(ctx.archiveDir, indexFileName(ctx.logPath));
  if (!(await ctx.io.exists(file))) return emptyIndex(ctx.logPath);
  return parseIndex((await ctx.io.readFile(file)).toString("utf8"));
}

/**
 * Adds every segment file of this log that the index does not list yet (in name = chain
 * order) and rewrites the index atomically. Returns the index as it now stands on disk.
 */
export async function reconcileIndex(ctx: ArchiveContext): Promise<CheckpointIndex> {
  const index = await readIndex(ctx);
  const known = new Set(index.segments.map((s) => s.segment));
  const names = (await ctx.io.readdir(ctx.archiveDir))
    .filter((n) => segmentSeq(ctx.logPath, n) !== undefined && !known.has(n))
    .sort();
  let changed = false;
  for (const name of names) {
    const last = index.segments[index.segments.length - 1];
    if (last && name < last.segment) {
      ctx.logger.warn(
        `audit: archived segment ${name} is older than the checkpoint index; left out of it`,
      );
      continue;
    }
    const facts = segmentFacts(await ctx.io.readFile(path.join(ctx.archiveDir, name)));
    index.segments.push(
      summarizeSegment(name, facts, last?.open_attempts ?? [], last?.last_hash ?? GENESIS),
    );
    changed = true;
  }
  if (changed) await writeIndex(ctx, index);
  return index;
}

async function writeIndex(ctx: ArchiveContext, index: CheckpointIndex): Promise<void> {
  const signed = signIndex(index, ctx.signer);
  await ctx.io.writeFileAtomic(
    path.join(ctx.archiveDir, indexFileName(ctx.logPath)),
    `${JSON.stringify(signed, null, 2)}\n`,
  );
}

/** Moves the (closed) live log into the archive and checkpoints it. */
export async function rotateLog(ctx: ArchiveContext): Promise<CheckpointIndex> {
  await ctx.io.mkdir(ctx.archiveDir);
  const before = await reconcileIndex(ctx);
  let maxSeq = 0;
  for (const s of before.segments)
    maxSeq = Math.max(maxSeq, segmentSeq(ctx.logPath, s.segment) ?? 0);
  for (const n of await ctx.io.readdir(ctx.archiveDir))
    maxSeq = Math.max(maxSeq, segmentSeq(ctx.logPath, n) ?? 0);
  await ctx.io.rename(
    ctx.logPath,
    path.join(ctx.archiveDir, segmentFileName(ctx.logPath, maxSeq + 1)),
  );
  return reconcileIndex(ctx);
}

/**
 * Deletes archived segments whose last entry is older than `retentionDays`. Only segments the
 * on-disk index lists are candidates, so a deleted segment is always checkpointed.
 */
export async function applyRetention(
  ctx: ArchiveContext,
  index: CheckpointIndex,
  retentionDays: number,
  now: Date,
): Promise<string[]> {
  const cutoff = now.getTime() - retentionDays * 86_400_000;
  const present = new Set(await ctx.io.readdir(ctx.archiveDir));
  const deleted: string[] = [];
  for (const s of index.segments) {
    if (!present.has(s.segment)) continue;
    const last = Date.parse(s.last_timestamp);
    if (Number.isNaN(last) || last >= cutoff) continue;
    await ctx.io.unlink(path.join(ctx.archiveDir, s.segment));
    deleted.push(s.segment);
  }
  if (deleted.length > 0)
    ctx.logger.info(`audit: retention deleted ${deleted.length} checkpointed segment(s)`);
  return deleted;
}
