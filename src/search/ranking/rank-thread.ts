/**
 * A second thread for the ranking queries of a search (docs/decisions.md "On 20,000+ rows a search
 * shares its work with a rank thread"). On 100,000 concepts a query of two or more words runs two
 * rankers, the trigram one (id, title, tags) and the word one, ~1.5 ms each, one after the other on
 * the main thread. Here one part of a search runs on a worker thread, over its own read-only
 * connection to the same file, while the main thread does the rest (which part: ranker-split.ts),
 * so the query takes about as long as the longer part.
 *
 * The hand-over is synchronous, so search() stays a plain call and no other call interleaves
 * with it: the main thread posts the query, does its own share, then blocks on a shared counter
 * (Atomics.wait) until the worker has answered and takes the answer off the port
 * (receiveMessageOnPort). Both connections read the same committed state: the main thread holds
 * no transaction (ranker-split.ts asks) and commits nothing while it waits.
 *
 * Nothing depends on the thread being there: it starts on the first query that could use it
 * (that query and the next few, until it is up, rank on the main thread), stops after a minute
 * without queries, and any failure (an error, no answer within the wait) answers null, which
 * makes the caller run that query itself. The worker's code is a string (eval), as in
 * integrity-check.ts, so it runs the same from src/ and dist/.
 */
import { createRequire } from "node:module";
import { availableParallelism } from "node:os";
import {
  MessageChannel,
  type MessagePort,
  receiveMessageOnPort,
  Worker,
} from "node:worker_threads";

const WORKER_SOURCE = `
const { workerData } = require("node:worker_threads");
const Database = require(workerData.module);
const { port } = workerData;
const signal = new Int32Array(workerData.signal);
const { ANSWERED, READY } = workerData.slots;
const connections = new Map();
function statement(file, sql) {
  let c = connections.get(file);
  if (!c) {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    db.pragma("cache_size = -" + workerData.cacheKib);
    c = { db, statements: new Map() };
    connections.set(file, c);
  }
  let st = c.statements.get(sql);
  if (!st) {
    if (c.statements.size >= 100) c.statements.clear();
    st = c.db.prepare(sql);
    c.statements.set(sql, st);
  }
  return st;
}
port.on("message", (m) => {
  if (m.forget !== undefined) {
    const c = connections.get(m.forget);
    connections.delete(m.forget);
    if (c) try { c.db.close(); } catch {}
    return;
  }
  let reply;
  try {
    reply = { id: m.id, rows: statement(m.file, m.sql).all(...m.params) };
  } catch (err) {
    reply = { id: m.id, error: String((err && err.code) || err) };
  }
  port.postMessage(reply);
  Atomics.store(signal, ANSWERED, m.id);
  Atomics.notify(signal, ANSWERED);
});
Atomics.store(signal, READY, 1);
`;

/** Slots of the shared counter: the id of the last answered query, and "worker is up". */
const ANSWERED = 0;
const READY = 1;

/** Page cache of each worker connection, KiB: the trigram table's hot pages on 100,000. */
const WORKER_CACHE_KIB = 32_768;
/** The longest the main thread waits for an answer before running the query itself. */
const DEFAULT_WAIT_MS = 5_000;
/** The thread (~20 MB with its connections' caches) stops after this long without a query. */
const DEFAULT_IDLE_MS = 60_000;

/** A query under way on the rank thread. */
export interface PendingRows {
  /** Its rows; null when the thread failed or did not answer in time (run it yourself). */
  result(): unknown[] | null;
}

interface Reply {
  id: number;
  rows?: unknown[];
  error?: string;
}

export class RankThread {
  private worker: Worker | null = null;
  private port: MessagePort | null = null;
  private signal = new Int32Array(new SharedArrayBuffer(8));
  private nextId = 0;
  private idleTimer: NodeJS.Timeout | null = null;
  /** Queries answered by the thread and queries handed back to the caller (tests, diagnostics). */
  readonly counts = { answered: 0, handedBack: 0 };

  constructor(
    private readonly waitMs = DEFAULT_WAIT_MS,
    private readonly idleMs = DEFAULT_IDLE_MS,
  ) {}

  /** Whether the thread is up and takes queries now. */
  get ready(): boolean {
    return this.worker !== null && Atomics.load(this.signal, READY) === 1;
  }

  /**
   * Starts `sql` over `file` (an index file path) on the thread, or starts the thread and
   * answers null when it is not up yet: the caller then runs the query itself.
   */
  start(file: string, sql: string, params: readonly unknown[]): PendingRows | null {
    this.touch();
    if (!this.ready || this.port === null) {
      if (this.worker === null) this.spawn();
      return null;
    }
    const id = ++this.nextId;
    this.port.postMessage({ id, file, sql, params });
    return { result: () => this.collect(id) };
  }

  /** Closes the thread's connection to `file` (the index closed it, or replaced the file). */
  forget(file: string): void {
    this.port?.postMessage({ forget: file });
  }

  /** Stops the thread; the next query starts it again. */
  stop(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    this.port?.close();
    this.port = null;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    return worker ? worker.terminate().then(() => {}) : Promise.resolve();
  }

  private spawn(): void {
    const { port1, port2 } = new MessageChannel();
    // A fresh counter per thread: a stopped thread's late store cannot answer for the new one.
    this.signal = new Int32Array(new SharedArrayBuffer(8));
    this.nextId = 0;
    const module = createRequire(import.meta.url).resolve("better-sqlite3");
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        module,
        port: port2,
        signal: this.signal.buffer,
        slots: { ANSWERED, READY },
        cacheKib: WORKER_CACHE_KIB,
      },
      transferList: [port2],
    });
    worker.unref(); // never what keeps a process alive
    port1.unref();
    const lost = () => {
      if (this.worker === worker) void this.stop();
    };
    worker.on("error", lost);
    worker.on("exit", lost);
    this.worker = worker;
    this.port = port1;
  }

  private collect(id: number): unknown[] | null {
    const deadline = performance.now() + this.waitMs;
    for (;;) {
      const answered = Atomics.load(this.signal, ANSWERED);
      if (answered >= id) break;
      const left = deadline - performance.now();
      if (left <= 0 || Atomics.wait(this.signal, ANSWERED, answered, left) === "timed-out") {
        // A thread that cannot answer in this long is stuck: stop it, rank here from now on
        // until a new one is up.
        this.counts.handedBack++;
        void this.stop();
        return null;
      }
    }
    for (let m = this.receive(); m !== undefined; m = this.receive()) {
      if (m.id !== id) continue; // an answer to a query given up on
      if (m.rows === undefined) break;
      this.counts.answered++;
      return m.rows;
    }
    this.counts.handedBack++;
    return null;
  }

  private receive(): Reply | undefined {
    const port = this.port;
    return port ? (receiveMessageOnPort(port)?.message as Reply | undefined) : undefined;
  }

  private touch(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => void this.stop(), this.idleMs);
    this.idleTimer.unref();
  }
}

/** The process's rank thread, shared by every index it opens. */
export const rankThread = new RankThread();

/** Indexes with fewer rows rank on one thread: the hand-over (~0.05 ms) would not pay. */
export const RANK_THREAD_MIN_ROWS = 20_000;

/** Runs a ranking query on another thread over one index file (what top-ranked.ts uses). */
export interface OffThread {
  /** The query under way, or null when no thread takes it now (run it here). */
  start(sql: string, params: readonly unknown[]): PendingRows | null;
  minRows: number;
  /** Closes the thread's connection to the file (the index closed or replaced it). */
  forget(): void;
}

/** The process's rank thread for `file`, or none on a single core (the threads would take turns). */
export function defaultOffThread(file: string): OffThread | undefined {
  return availableParallelism() > 1 ? offThreadFor(file) : undefined;
}

export function offThreadFor(
  file: string,
  thread: RankThread = rankThread,
  minRows = RANK_THREAD_MIN_ROWS,
): OffThread {
  return {
    start: (sql, params) => thread.start(file, sql, params),
    minRows,
    forget: () => thread.forget(file),
  };
}
