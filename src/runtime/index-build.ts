/**
 * Background index builds within a bounded worker budget (docs/decisions.md "At most 2 index builds
 * run at once"): a mounted KB is served at once; its index is built by a job run here, at most
 * `concurrency` at a time (first come, first served), so a server with 50 KBs neither builds them
 * one after the other before answering nor all at once. A job yields to the event loop between
 * batches (buildKbIndex), so one KB's build never holds up another KB's calls for longer than one
 * batch. The files of every build are read and parsed by one shared pool of `readThreads` worker
 * threads (search/build-reader.ts) while the main thread writes SQLite: two builds on two cores use
 * three threads, never more.
 */
import { ReadWorkerPool } from "../search/build-reader.js";

export type BuildJob = (signal: AbortSignal) => Promise<void>;

export interface ScheduledBuild {
  /** Drops the job if it has not started, else aborts it; resolves once it has stopped. */
  cancel(): Promise<void>;
  /** Resolves when the job has run (or was cancelled); never rejects. */
  readonly finished: Promise<void>;
}

/** Builds run at once by default: two cores, and SQLite writes are CPU-bound. */
export const DEFAULT_BUILD_CONCURRENCY = 2;
/** Worker threads reading files for all builds: the main thread writes, one thread reads. */
export const DEFAULT_READ_THREADS = 1;

export class IndexBuildScheduler {
  private running = 0;
  /** Jobs waiting for a slot, by ascending `order` (equal orders first come, first served). */
  private readonly queue: Array<{ start: () => void; order: number }> = [];
  private paused = false;
  /** Reads the files of every build this scheduler runs (pass it as PassControl.reader). */
  readonly reader: ReadWorkerPool;

  constructor(
    readonly concurrency: number = DEFAULT_BUILD_CONCURRENCY,
    readThreads: number = DEFAULT_READ_THREADS,
  ) {
    if (!Number.isInteger(concurrency) || concurrency < 1)
      throw new RangeError(
        `index build concurrency must be a positive integer, got ${concurrency}`,
      );
    this.reader = new ReadWorkerPool(readThreads);
  }

  /**
   * Holds every job scheduled from now on until resume(): the composition root mounts all its
   * KBs first, so mounting the 50th KB does not wait behind the builds of the first 49.
   */
  pause(): void {
    this.paused = true;
  }

  resume(): void {
    this.paused = false;
    while (this.running < this.concurrency && this.queue.length > 0) this.queue.shift()?.start();
  }

  /** Jobs waiting for a slot (for tests and /health figures). */
  get queued(): number {
    return this.queue.length;
  }

  /**
   * Runs `job` when a slot is free. A lower `order` goes first among waiting jobs: KBs opened
   * at once while the scheduler is paused still build in configuration order.
   */
  schedule(job: BuildJob, order = Number.POSITIVE_INFINITY): ScheduledBuild {
    const ctrl = new AbortController();
    let resolveFinished = () => {};
    const finished = new Promise<void>((resolve) => {
      resolveFinished = resolve;
    });
    const start = () => {
      this.running++;
      // A job reports its own failures; the catch only keeps the queue moving.
      job(ctrl.signal)
        .catch(() => {})
        .finally(() => {
          this.running--;
          resolveFinished();
          if (!this.paused) this.queue.shift()?.start();
        });
    };
    if (!this.paused && this.running < this.concurrency) start();
    else {
      const at = this.queue.findIndex((q) => q.order > order);
      this.queue.splice(at === -1 ? this.queue.length : at, 0, { start, order });
    }
    return {
      finished,
      cancel: async () => {
        ctrl.abort();
        const waiting = this.queue.findIndex((q) => q.start === start);
        if (waiting !== -1) {
          this.queue.splice(waiting, 1);
          resolveFinished();
        }
        await finished;
      },
    };
  }
}
