/**
 * The state of a KB's index build as the server reports it (docs/decisions.md "The server answers
 * first"): a mounted KB answers at once and builds its index in the background, so search,
 * kb_status and /health say how far it got. One BuildStatus per mounted KB, written by the build
 * (src/mcp/index-build.ts), read by the tools and /health.
 */

export type IndexState = "queued" | "building" | "ready" | "failed";

export interface IndexProgress {
  readonly state: IndexState;
  /** Concept files indexed (unchanged ones count) of `total`; both 0 until the scan is done. */
  readonly done: number;
  readonly total: number;
  /** Why the last build failed (path-free, set by the scheduler), only when `failed`. */
  readonly error?: string;
}

export class BuildStatus {
  private current: IndexProgress;
  private waiters = new Set<() => void>();

  constructor(state: IndexState = "ready") {
    this.current = { state, done: 0, total: 0 };
  }

  get progress(): IndexProgress {
    return this.current;
  }

  /** True once the index holds every concept file (searches see the whole KB). */
  get ready(): boolean {
    return this.current.state === "ready";
  }

  set(state: IndexState, done = this.current.done, total = this.current.total, error?: string) {
    this.current = { state, done, total, ...(error !== undefined ? { error } : {}) };
    if (state === "ready" || state === "failed") {
      for (const wake of this.waiters) wake();
      this.waiters.clear();
    }
  }

  /** Resolves when the build ends (ready or failed) or after `ms`, whichever comes first. */
  settled(ms: number): Promise<void> {
    if (this.current.state === "ready" || this.current.state === "failed" || ms <= 0)
      return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      timer.unref();
      this.waiters.add(done);
    });
  }
}
