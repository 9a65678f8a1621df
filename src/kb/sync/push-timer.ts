/**
 * When a KB's next push runs: a debounce timer that the commits of a burst join (so a steady
 * stream of writes cannot postpone every push), and the retry delay after a failed push,
 * doubling from RETRY_MIN_MS up to RETRY_MAX_MS and reset by a push that lands.
 */

/** A failed push is retried after this long, doubling up to RETRY_MAX_MS. */
const RETRY_MIN_MS = 500;
const RETRY_MAX_MS = 10_000;

export class PushTimer {
  private timer: NodeJS.Timeout | undefined;
  private retryMs = RETRY_MIN_MS;
  private closed = false;

  /** `push` runs when the timer fires; it takes the KB lock itself and never throws. */
  constructor(private readonly push: () => Promise<void>) {}

  /** Starts the timer unless one is running (latency ≤ `ms` for every commit of a burst). */
  once(ms: number): void {
    if (this.timer === undefined) this.at(ms);
  }

  /** (Re)starts the timer to fire in `ms`. */
  at(ms: number): void {
    if (this.closed) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.push();
    }, ms);
    this.timer.unref();
  }

  /** A push failed: try again after the current retry delay, then double it. */
  retryLater(): void {
    this.at(this.retryMs);
    this.retryMs = Math.min(this.retryMs * 2, RETRY_MAX_MS);
  }

  /** The current retry delay, for a push postponed without an attempt. */
  retrySoon(): void {
    this.at(this.retryMs);
  }

  /** A push landed: the next failure waits the shortest delay again. */
  landed(): void {
    this.retryMs = RETRY_MIN_MS;
  }

  /** Cancels the pending timer (a flush pushes now instead). */
  cancel(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Cancels and refuses further timers. */
  close(): void {
    this.closed = true;
    this.cancel();
  }
}

/**
 * Runs `run` every `ms` after the previous run finished (never two at once), until stopped.
 * The timer does not hold the process open.
 */
export class RepeatTimer {
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly ms: number,
    private readonly run: () => Promise<void>,
  ) {}

  start(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      void this.run()
        .catch(() => {})
        .finally(() => this.start());
    }, this.ms);
    this.timer.unref();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }
}
