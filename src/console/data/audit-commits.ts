/**
 * Where each commit's audit completion is, over the whole audit trail — the archived segments and
 * the live log — so that a commit older than the audit window (audit-window.ts) still names its
 * call (docs/decisions.md "Console: a commit's call beyond the audit window"). Kept in memory per
 * process: built once in the background on first use, oldest file first, then caught up with the
 * bytes appended since at each use; each file is read only once (a segment never changes, the
 * live log only grows; a rotated live log keeps its inode and so its place). A scan only looks
 * for `"commit_sha":"` in whole lines; the line at a position is read again and parsed when asked
 * (audit-window.ts completionCall), so the index holds positions, never content. Read only.
 */
import { open, readdir, stat } from "node:fs/promises";
import path from "node:path";
import { defaultArchiveDir, segmentSeq } from "../../audit/checkpoint.js";

/** Commits indexed at most (the oldest are dropped first): ≈ 70 bytes each. */
export const MAX_INDEXED = 500_000;
/** Files (segments + the live log) indexed at most: the newest. */
export const MAX_FILES = 4_096;
/** Bytes read per step: each step yields to other work. */
const CHUNK = 1 << 20;
/** A longer line is skipped (ours are under 4 KiB). */
const MAX_LINE = 1 << 20;
/** Bytes one position may address in a file: file slot × 2^40 + offset stays an exact double. */
const SPAN = 2 ** 40;
/** A position is keyed by this many hex digits of the sha (checked whole when read). */
const KEY_HEX = 16;
const PATTERN = Buffer.from('"commit_sha":"');
const NEWLINE = 0x0a;

interface Slot {
  path: string;
  dev: number;
  ino: number;
  /** Bytes from the start indexed so far (whole lines). */
  scanned: number;
  gone: boolean;
}

export interface AuditTrailFiles {
  log: string;
  archiveDir?: string;
}

export class AuditCommitIndex {
  private readonly slots: Slot[] = [];
  private readonly positions = new Map<string, number>();
  private running: Promise<void> | null = null;
  private passes = 0;
  /** The live log's slot at the last pass. */
  private live: Slot | null = null;

  constructor(private readonly files: AuditTrailFiles) {}

  /** True once the first whole pass over the trail has ended. */
  get ready(): boolean {
    return this.passes > 0;
  }

  get size(): number {
    return this.positions.size;
  }

  /** Catches up with the trail in the background (one pass at a time); resolves when it ends. */
  refresh(): Promise<void> {
    this.running ??= this.catchUp()
      .catch(() => {})
      .finally(() => {
        this.passes++;
        this.running = null;
      });
    return this.running;
  }

  /** The completion lines recording `shas` (full shas) that the index has reached. */
  async lines(shas: readonly string[]): Promise<Map<string, string>> {
    const bySlot = new Map<number, Array<{ sha: string; offset: number }>>();
    for (const sha of shas) {
      const pos = this.positions.get(sha.slice(0, KEY_HEX));
      if (pos === undefined) continue;
      const slot = Math.floor(pos / SPAN);
      const list = bySlot.get(slot) ?? [];
      list.push({ sha, offset: pos % SPAN });
      bySlot.set(slot, list);
    }
    const out = new Map<string, string>();
    for (const [index, wanted] of bySlot) {
      const slot = this.slots[index];
      if (slot === undefined || slot.gone) continue;
      const fh = await open(slot.path, "r").catch(() => null);
      if (fh === null) continue;
      try {
        const st = await fh.stat();
        // The live log was rotated since: its slot's file is now a segment (the next pass finds it).
        if (st.ino !== slot.ino || st.dev !== slot.dev) continue;
        for (const { sha, offset } of wanted) {
          const line = await lineAt(fh, offset);
          if (line?.includes(`"commit_sha":"${sha}"`)) out.set(sha, line);
        }
      } finally {
        await fh.close();
      }
    }
    return out;
  }

  private async catchUp(): Promise<void> {
    const live = await stat(this.files.log).catch(() => null);
    const same = live !== null && this.live !== null && live.ino === this.live.ino;
    if (this.passes > 0 && same && this.live !== null && live !== null) {
      // Only the live log grows: the segments were read whole when they were found.
      if (live.size < this.live.scanned) this.live.scanned = 0;
      if (live.size > this.live.scanned) await this.scan(this.live, live.size);
      return;
    }
    const archive = this.files.archiveDir ?? defaultArchiveDir(this.files.log);
    const names = await readdir(archive).catch(() => [] as string[]);
    const segments = names
      .filter((n) => segmentSeq(this.files.log, n) !== undefined)
      .sort()
      .map((n) => path.join(archive, n));
    const trail = [...segments, this.files.log].slice(-MAX_FILES);
    const seen = new Set<Slot>();
    const wasLive = this.live;
    this.live = null;
    for (const file of trail) {
      const st = await stat(file).catch(() => null);
      if (st === null || !st.isFile()) continue;
      const slot = this.slotOf(file, st.dev, st.ino, wasLive);
      if (slot === null) continue;
      seen.add(slot);
      if (file === this.files.log) this.live = slot;
      // A live log cut shorter (a torn line removed at start-up) is read again from the start.
      if (st.size < slot.scanned) slot.scanned = 0;
      if (st.size > slot.scanned) await this.scan(slot, st.size);
    }
    for (const slot of this.slots) if (!seen.has(slot)) slot.gone = true;
  }

  /**
   * The slot of the file `dev:ino`, or a new one. Only the live log is ever renamed (into a
   * segment): another file met under a known inode is a new file on a reused inode (retention
   * deleted the old one), and the old slot is gone.
   */
  private slotOf(file: string, dev: number, ino: number, wasLive: Slot | null): Slot | null {
    const known = this.slots.find((s) => s.ino === ino && s.dev === dev && !s.gone);
    if (known && (known.path === file || known === wasLive)) {
      known.path = file;
      return known;
    }
    if (known) known.gone = true;
    if (this.slots.length >= MAX_FILES) return null;
    const slot: Slot = { path: file, dev, ino, scanned: 0, gone: false };
    this.slots.push(slot);
    return slot;
  }

  /** Indexes the whole lines of `slot` from `scanned` to `size`. */
  private async scan(slot: Slot, size: number): Promise<void> {
    const index = this.slots.indexOf(slot);
    const fh = await open(slot.path, "r");
    try {
      let carry = Buffer.alloc(0);
      let pos = slot.scanned;
      while (pos < size) {
        const chunk = Buffer.alloc(Math.min(CHUNK, size - pos));
        const { bytesRead } = await fh.read(chunk, 0, chunk.length, pos);
        if (bytesRead === 0) break;
        const read = chunk.subarray(0, bytesRead);
        const data = carry.length > 0 ? Buffer.concat([carry, read]) : read;
        const base = pos - carry.length;
        pos += bytesRead;
        const end = data.lastIndexOf(NEWLINE);
        if (end < 0) {
          // No line ends in reach: past MAX_LINE the line is given up.
          carry = data.length > MAX_LINE ? Buffer.alloc(0) : Buffer.from(data);
          continue;
        }
        this.indexLines(data, end, index, base);
        slot.scanned = base + end + 1;
        carry = Buffer.from(data.subarray(end + 1));
      }
    } finally {
      await fh.close();
    }
  }

  /** Records every `"commit_sha":"<40 hex>"` in `data[0..end)` at its line's offset. */
  private indexLines(data: Buffer, end: number, slot: number, base: number): void {
    let at = data.indexOf(PATTERN, 0);
    while (at >= 0 && at < end) {
      const start = data.lastIndexOf(NEWLINE, at) + 1;
      const hex = data.toString("latin1", at + PATTERN.length, at + PATTERN.length + 40);
      if (/^[0-9a-f]{40}$/.test(hex)) this.put(hex, slot * SPAN + base + start);
      const next = data.indexOf(NEWLINE, at);
      if (next < 0 || next >= end) break;
      at = data.indexOf(PATTERN, next + 1);
    }
  }

  private put(sha: string, position: number): void {
    const key = sha.slice(0, KEY_HEX);
    this.positions.delete(key);
    this.positions.set(key, position);
    if (this.positions.size > MAX_INDEXED) {
      const oldest = this.positions.keys().next().value as string;
      this.positions.delete(oldest);
    }
  }
}

/** The line starting at `offset` (without its newline), or null: 4 KiB read first, 64 KiB at most. */
async function lineAt(
  fh: Awaited<ReturnType<typeof open>>,
  offset: number,
): Promise<string | null> {
  for (const size of [4 * 1024, 64 * 1024]) {
    const buf = Buffer.allocUnsafe(size);
    const { bytesRead } = await fh.read(buf, 0, size, offset);
    const nl = buf.subarray(0, bytesRead).indexOf(NEWLINE);
    if (nl >= 0) return buf.toString("utf8", 0, nl);
    if (bytesRead < size) return null;
  }
  return null;
}

const indexes = new Map<string, AuditCommitIndex>();

/** The process's one index over the trail of `files.log`. */
export function auditCommitIndex(files: AuditTrailFiles): AuditCommitIndex {
  let index = indexes.get(files.log);
  if (!index) {
    index = new AuditCommitIndex(files);
    indexes.set(files.log, index);
  }
  return index;
}
