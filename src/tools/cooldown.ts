/**
 * A per-KB rate limit for expensive maintenance tools (docs/decisions.md "`index_rebuild` starts at
 * most once per 30 s per KB"): at most one start per interval, per key (a KB runtime). A call too
 * soon gets `rate_limited` saying when to retry. One-at-a-time comes from the KB write lock the
 * tool runs under. State is in memory: a restart forgets it.
 */
import { KbError } from "../common/errors.js";

export class Cooldown<K extends object> {
  private readonly lastStart = new WeakMap<K, number>();

  /** `what` names the operation in the error, e.g. `index_rebuild`. */
  constructor(
    readonly intervalMs: number,
    private readonly what: string,
  ) {}

  /** Records a start for `key` at `now`, or throws `rate_limited` when the last was too recent. */
  take(key: K, now: Date): void {
    const at = now.getTime();
    const last = this.lastStart.get(key);
    if (last !== undefined && at - last < this.intervalMs && at >= last) {
      const waitMs = this.intervalMs - (at - last);
      const retryAt = new Date(at + waitMs).toISOString();
      throw new KbError(
        "rate_limited",
        `${this.what} runs at most once every ${this.intervalMs / 1000} s per KB: retry in ${Math.ceil(waitMs / 1000)} s (at ${retryAt})`,
        { retry_after_ms: waitMs, retry_at: retryAt },
      );
    }
    this.lastStart.set(key, at);
  }
}
