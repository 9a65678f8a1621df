/**
 * The durable audit sink (D18, D119): appends chained entries to a JSONL file with group
 * commit (all appends waiting while a write+fsync is in flight share the next one; chain order
 * = append order), rolls back partial writes, rotates into the archive and applies retention.
 */
import { randomUUID } from "node:crypto";
import path from "node:path";
import { isKbError } from "../common/errors.js";
import type { HeldLock } from "../common/process-lock.js";
import { type Logger, silentLogger } from "../logger.js";
import { type ArchiveContext, applyRetention, reconcileIndex, rotateLog } from "./archive.js";
import { defaultArchiveDir } from "./checkpoint.js";
import {
  type AuditEntry,
  type AuditSigner,
  chainEntry,
  createSigner,
  entryFromRecord,
  type UnchainedEntry,
} from "./entry.js";
import { archiveHead } from "./go-archive.js";
import { type AuditFile, type AuditIo, nodeAuditIo } from "./io.js";
import { acquireAuditLogLock } from "./log-lock.js";
import { CorruptAuditLogError, readTail } from "./tail.js";
import {
  type AuditMode,
  type AuditRecordInput,
  type AuditSink,
  REQUIRED_MODE_REJECTION,
} from "./types.js";

export interface AuditSinkOptions {
  /** The live JSONL log (audit.log / CARTOGRAPHER_AUDIT_LOG). */
  path: string;
  mode: AuditMode;
  /** 64-hex Ed25519 seed (audit.key_seed / CARTOGRAPHER_AUDIT_KEY); a bad seed throws. */
  keySeedHex?: string;
  /** Rotate once the live log reaches this many bytes (audit.max_segment_bytes); default: never. */
  maxSegmentBytes?: number;
  /** Where rotated segments go (audit.archive_dir); default `<dir of log>/audit-archive`. */
  archiveDir?: string;
  /** Delete checkpointed segments whose last entry is older than this (audit.retention_days). */
  retentionDays?: number;
  logger?: Logger;
  now?: () => Date;
  /** TEST-ONLY fault-injection seam: replaces the file operations. Production passes nothing. */
  io?: AuditIo;
}

export interface OpenedAuditSink extends AuditSink {
  /** Hex Ed25519 public key when a seed is configured (what `audit verify --public-key` wants). */
  readonly publicKeyHex?: string;
}

interface Pending {
  entry: UnchainedEntry;
  resolve: () => void;
  reject: (err: Error) => void;
}

/** Request ids of dropped attempts are remembered so their completions are dropped too. */
const MAX_DROPPED_REQUESTS = 10_000;

/**
 * Opens (or resumes) the log. Throws on a bad key seed, a log whose last complete line is not
 * an entry, or a log another process holds (KbError `locked`, see log-lock.ts); an I/O failure
 * only leaves the sink unhealthy, and it retries on each append.
 */
export async function openAuditSink(opts: AuditSinkOptions): Promise<OpenedAuditSink> {
  const signer = opts.keySeedHex !== undefined ? createSigner(opts.keySeedHex) : undefined;
  const sink = new FileAuditSink(opts, signer);
  await sink.start();
  return sink;
}

class FileAuditSink implements OpenedAuditSink {
  readonly mode: AuditMode;
  readonly publicKeyHex?: string;
  private readonly io: AuditIo;
  private readonly logger: Logger;
  private readonly now: () => Date;
  private readonly archive: ArchiveContext;
  private file: AuditFile | null = null;
  /** Bytes known good (durable, complete lines) and the hash they end with; null before the first open. */
  private good: { size: number; prev: string } | null = null;
  private queue: Pending[] = [];
  private draining: Promise<void> | null = null;
  private isHealthy = true;
  private droppedCount = 0;
  private burstDrops = 0;
  private readonly droppedRequests = new Set<string>();
  private closed = false;
  /** The log's lock across processes, held from the first open until close. */
  private lock: HeldLock | null = null;

  constructor(
    private readonly opts: AuditSinkOptions,
    private readonly signer: AuditSigner | undefined,
  ) {
    this.mode = opts.mode;
    this.publicKeyHex = signer?.publicKeyHex;
    this.io = opts.io ?? nodeAuditIo;
    this.logger = opts.logger ?? silentLogger;
    this.now = opts.now ?? (() => new Date());
    this.archive = {
      logPath: opts.path,
      archiveDir: opts.archiveDir ?? defaultArchiveDir(opts.path),
      io: this.io,
      signer,
      logger: this.logger,
    };
  }

  async start(): Promise<void> {
    try {
      await this.ensureOpen();
    } catch (err) {
      if (err instanceof CorruptAuditLogError || isKbError(err, "locked")) throw err;
      this.markFailed(err);
      return;
    }
    await this.retain();
  }

  healthy(): boolean {
    return this.isHealthy;
  }

  dropped(): number {
    return this.droppedCount;
  }

  append(record: AuditRecordInput): Promise<void> {
    if (this.closed) {
      this.markFailed(new Error("audit sink is closed"));
      if (this.mode === "required") return Promise.reject(new Error(REQUIRED_MODE_REJECTION));
      this.droppedCount++;
      return Promise.resolve();
    }
    if (record.phase === "completion" && this.droppedRequests.delete(record.request_id)) {
      // Its attempt never reached the log; a lone completion would read as tampering.
      this.droppedCount++;
      this.burstDrops++;
      return Promise.resolve();
    }
    const entry = entryFromRecord(record, randomUUID(), this.now().toISOString());
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ entry, resolve, reject });
      // Deferred so that every append issued in the same tick joins the first batch.
      this.draining ??= Promise.resolve().then(() => this.drain());
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.draining;
    const file = this.file;
    this.file = null;
    await file?.close().catch(() => {});
    await this.lock?.release();
    this.lock = null;
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, 4096);
      await this.commit(batch);
    }
    this.draining = null;
  }

  /** One write + one fsync for the whole batch. */
  private async commit(batch: Pending[]): Promise<void> {
    let chained: AuditEntry[] = [];
    try {
      const file = await this.ensureOpen();
      const good = this.good as { size: number; prev: string };
      let prev = good.prev;
      chained = batch.map((p) => {
        const e = chainEntry(p.entry, prev, this.signer);
        prev = e.hash;
        return e;
      });
      const buf = Buffer.from(chained.map((e) => `${JSON.stringify(e)}\n`).join(""), "utf8");
      let written = 0;
      while (written < buf.length) {
        const n = await file.write(buf.subarray(written), good.size + written);
        if (n <= 0) throw new Error("write made no progress");
        written += n;
      }
      await file.sync();
      this.good = { size: good.size + buf.length, prev };
    } catch (err) {
      await this.rollback();
      this.fail(batch, err);
      return;
    }
    if (!this.isHealthy || this.burstDrops > 0) {
      this.logger.warn(
        `audit: appends recovered${this.burstDrops > 0 ? ` after ${this.burstDrops} dropped` : ""}`,
      );
    }
    this.isHealthy = true;
    this.burstDrops = 0;
    for (const p of batch) p.resolve();
    if (
      this.opts.maxSegmentBytes !== undefined &&
      (this.good?.size ?? 0) >= this.opts.maxSegmentBytes
    ) {
      await this.rotate();
    }
  }

  /** Opens the log if needed, resuming from the last good line. */
  private async ensureOpen(): Promise<AuditFile> {
    if (this.file) return this.file;
    await this.io.mkdir(path.dirname(this.opts.path));
    this.lock ??= await acquireAuditLogLock(this.opts.path, this.logger);
    const file = await this.io.open(this.opts.path);
    try {
      const size = await file.size();
      if (this.good && size >= this.good.size) {
        // Bytes past the known-good length were never acknowledged: cut them.
        if (size > this.good.size) await this.cut(file, this.good.size, size);
      } else {
        if (this.good)
          this.logger.warn(
            `audit: ${this.opts.path} shrank while closed; resuming from its last line`,
          );
        const tail = await readTail(file, size, this.opts.path);
        if (tail.goodSize < size) await this.cut(file, tail.goodSize, size);
        // An empty log continues the archive's chain — Go's too, after a Go rotation (go-archive.ts).
        const prev = tail.lastHash ?? (await archiveHead(this.archive));
        this.good = { size: tail.goodSize, prev };
      }
    } catch (err) {
      await file.close().catch(() => {});
      throw err;
    }
    this.file = file;
    return file;
  }

  private async cut(file: AuditFile, to: number, from: number): Promise<void> {
    this.logger.warn(
      `audit: truncated ${from - to} byte(s) of an incomplete last line in ${this.opts.path}`,
    );
    await file.truncate(to);
    await file.sync();
  }

  /** Truncates to the last good length; if that fails too, closes so the next append reopens. */
  private async rollback(): Promise<void> {
    const file = this.file;
    if (!file || !this.good) return;
    try {
      await file.truncate(this.good.size);
      await file.sync();
    } catch {
      // ensureOpen cuts the unacknowledged bytes when it reopens.
    }
    this.file = null;
    await file.close().catch(() => {});
  }

  private fail(batch: Pending[], err: unknown): void {
    this.markFailed(err);
    if (this.mode === "required") {
      for (const p of batch) p.reject(new Error(REQUIRED_MODE_REJECTION, { cause: err }));
      return;
    }
    this.droppedCount += batch.length;
    this.burstDrops += batch.length;
    for (const p of batch) {
      if (p.entry.phase === "attempt") this.rememberDropped(p.entry.request_id);
      p.resolve();
    }
  }

  private markFailed(err: unknown): void {
    // Once per burst: a dead disk must not flood stderr with one line per call.
    if (this.isHealthy) {
      const why = err instanceof Error ? err.message : String(err);
      const effect = this.mode === "required" ? "calls are rejected" : "entries are dropped";
      this.logger.error(
        `audit: cannot append to ${this.opts.path} (${why}); ${effect} until it is writable again`,
      );
    }
    this.isHealthy = false;
  }

  private rememberDropped(requestId: string): void {
    if (this.droppedRequests.size >= MAX_DROPPED_REQUESTS) {
      const oldest = this.droppedRequests.values().next().value;
      if (oldest !== undefined) this.droppedRequests.delete(oldest);
    }
    this.droppedRequests.add(requestId);
  }

  private async rotate(): Promise<void> {
    const file = this.file;
    this.file = null;
    try {
      await file?.close();
      await rotateLog(this.archive);
      // The new live log starts empty and links to the rotated segment's last hash.
      this.good = { size: 0, prev: (this.good as { prev: string }).prev };
      await this.ensureOpen();
    } catch (err) {
      this.logger.error(
        `audit: rotation of ${this.opts.path} failed (${(err as Error).message}); will retry`,
      );
      return;
    }
    await this.retain();
  }

  private async retain(): Promise<void> {
    if (this.opts.retentionDays === undefined) return;
    try {
      const index = await reconcileIndex(this.archive);
      await applyRetention(this.archive, index, this.opts.retentionDays, this.now());
    } catch (err) {
      this.logger.error(
        `audit: retention in ${this.archive.archiveDir} failed (${(err as Error).message})`,
      );
    }
  }
}
