/**
 * Who reads the concept files of an index build: in process (readIndexDocs), or a small pool of
 * worker threads (build-read-worker.ts) so that reading and parsing the next batch runs on the
 * second core while the main thread writes the current one into SQLite (docs/decisions.md "A bulk
 * pass's files are read, hashed, parsed": ~5 s of a 22 s 100,000-concept build was file reads,
 * hashes and frontmatter parsing on the main thread). One pool serves every KB of a server
 * (src/mcp/index-build.ts), so concurrent builds share a bounded number of threads. Results are the
 * same either way: a batch the worker cannot read (or a worker that died) is read again in process,
 * which reports its errors as before.
 */
import type { Worker } from "node:worker_threads";
import { siblingModule, startModuleWorker } from "../common/module-worker.js";
import type { ConceptFileStat } from "../kb/core/api.js";
import type { ConceptDoc, MapDescriptor } from "../kb/core/types.js";
import { readIndexDocs } from "../kb/store/index-read.js";
import type { Logger } from "../logger.js";
import type { PreparedRow } from "./rows.js";

/** Reads the documents of `files`, in order (null: vanished since the scan). */
export interface DocReader {
  read(
    root: string,
    maps: readonly MapDescriptor[],
    files: readonly ConceptFileStat[],
    logger: Logger | undefined,
  ): Promise<Array<ConceptDoc | null>>;
}

/** What the main thread sends the worker. */
export interface ReadRequest {
  id: number;
  root: string;
  maps: readonly MapDescriptor[];
  files: readonly ConceptFileStat[];
}

/** A PreparedRow as sent: `body` null when it is the document's whole body (sent once). */
export type WireRow = Omit<PreparedRow, "body"> & { body: string | null };

/** What the worker answers. */
export type ReadReply =
  | {
      id: number;
      docs: Array<ConceptDoc | null>;
      rows: Array<WireRow | null>;
      warnings: string[];
    }
  | { id: number; failed: true };

/**
 * Row values the read worker computed, by document (weakly: a document dropped unwritten, e.g.
 * a concept a tool wrote meanwhile, takes its row along). The insert takes them once
 * (takePreparedRow), or computes them itself for a document read in process.
 */
const preparedRows = new WeakMap<ConceptDoc, PreparedRow>();

export function takePreparedRow(doc: ConceptDoc): PreparedRow | undefined {
  const prepared = preparedRows.get(doc);
  if (prepared) preparedRows.delete(doc);
  return prepared;
}

/** The in-process reader: the main thread reads and parses (small builds, no pool). */
export const inProcessReader: DocReader = {
  read: (root, maps, files, logger) => readIndexDocs(root, files, maps, logger),
};

/** A worker with nothing to do for this long is stopped (its heap is ~50 MB of RSS). */
const IDLE_MS = 5_000;

interface Pending {
  resolve: (docs: Array<ConceptDoc | null> | null) => void;
  logger: Logger | undefined;
}

/** One worker thread and the requests it has not answered yet. */
class ReadWorker {
  private worker: Worker | null = null;
  private readonly pending = new Map<number, Pending>();
  private idleTimer: NodeJS.Timeout | null = null;

  constructor(private readonly idleMs: number) {}

  get load(): number {
    return this.pending.size;
  }

  get running(): boolean {
    return this.worker !== null;
  }

  /** The documents, or null when the worker could not read them (the caller reads in process). */
  read(req: ReadRequest, logger: Logger | undefined): Promise<Array<ConceptDoc | null> | null> {
    return new Promise((resolve) => {
      const worker = this.started();
      if (this.idleTimer) clearTimeout(this.idleTimer);
      this.idleTimer = null;
      this.pending.set(req.id, { resolve, logger });
      worker.ref(); // an answer is awaited: the process must not exit under it
      worker.postMessage(req);
    });
  }

  stop(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.failAll();
    return worker ? worker.terminate().then(() => {}) : Promise.resolve();
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    const worker = startModuleWorker(WORKER_URL);
    worker.on("message", (reply: ReadReply) => this.answer(reply));
    // A crash (out of memory, a bug): what it had not answered is read in process.
    worker.on("error", () => this.lost(worker));
    worker.on("exit", () => this.lost(worker));
    this.worker = worker;
    return worker;
  }

  private answer(reply: ReadReply): void {
    const p = this.pending.get(reply.id);
    if (!p) return;
    this.pending.delete(reply.id);
    if ("failed" in reply) p.resolve(null);
    else {
      for (const w of reply.warnings) p.logger?.warn(w);
      reply.docs.forEach((doc, i) => {
        const row = reply.rows[i];
        if (doc && row) preparedRows.set(doc, { ...row, body: row.body ?? doc.body });
      });
      p.resolve(reply.docs);
    }
    if (this.pending.size === 0) this.idle();
  }

  private idle(): void {
    this.worker?.unref();
    this.idleTimer = setTimeout(() => void this.stop(), this.idleMs);
    this.idleTimer.unref();
  }

  private lost(worker: Worker): void {
    if (this.worker !== worker) return;
    this.worker = null;
    this.failAll();
  }

  private failAll(): void {
    for (const p of this.pending.values()) p.resolve(null);
    this.pending.clear();
  }
}

/**
 * Up to `threads` worker threads shared by every build that uses this pool: a batch goes to the
 * thread with the fewest unanswered batches. Threads start on first use and stop when idle.
 */
export class ReadWorkerPool implements DocReader {
  private readonly workers: ReadWorker[];
  private nextId = 0;
  /** Batches answered by a worker and batches read in process instead (tests, diagnostics). */
  readonly batches = { worker: 0, inProcess: 0 };

  constructor(
    readonly threads = 1,
    idleMs = IDLE_MS,
  ) {
    if (!Number.isInteger(threads) || threads < 1)
      throw new RangeError(`read worker threads must be a positive integer, got ${threads}`);
    this.workers = Array.from({ length: threads }, () => new ReadWorker(idleMs));
  }

  async read(
    root: string,
    maps: readonly MapDescriptor[],
    files: readonly ConceptFileStat[],
    logger: Logger | undefined,
  ): Promise<Array<ConceptDoc | null>> {
    const worker = this.workers.reduce((a, b) => (b.load < a.load ? b : a));
    const docs = await worker.read({ id: this.nextId++, root, maps, files }, logger);
    if (docs) {
      this.batches.worker++;
      return docs;
    }
    this.batches.inProcess++;
    return readIndexDocs(root, files, maps, logger);
  }

  /** Threads alive now (they start on demand and stop after `idleMs` without work). */
  get running(): number {
    return this.workers.filter((w) => w.running).length;
  }

  /** Stops every thread (requests under way are read in process). */
  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.stop()));
  }
}

/** The worker's module beside this one (common/module-worker.ts: dist/ and source alike). */
const WORKER_URL = siblingModule(import.meta.url, "build-read-worker");
