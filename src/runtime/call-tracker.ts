/**
 * The tool calls under way on one mounted KB, and whether it is closing: shutdown refuses new
 * calls and waits for those under way (their audit completions included) before the index or
 * the audit sink closes. The call pipeline registers each call here; the mount drains it.
 */
import type { Logger } from "../logger.js";

/** How long shutdown waits for calls under way before giving up on a hung one. */
export const DRAIN_GRACE_MS = 10_000;

export class CallTracker {
  private readonly calls = new Set<Promise<unknown>>();
  private closingNow = false;
  /** The logger and KB name of the latest call, for the shutdown warning. */
  private logger?: Logger;
  private kb?: string;

  get closing(): boolean {
    return this.closingNow;
  }

  /** How many calls are under way (the in-flight gauge of src/metrics). */
  get inFlight(): number {
    return this.calls.size;
  }

  /** Counts `call` as under way until it settles. */
  track<T>(call: Promise<T>, kb: string, logger: Logger): Promise<T> {
    this.kb = kb;
    this.logger = logger;
    this.calls.add(call);
    const untrack = () => this.calls.delete(call);
    call.then(untrack, untrack);
    return call;
  }

  /**
   * Refuses new calls and resolves once every call already under way has finished. A transport
   * sees a call end when its response closes (a client that hung up), not when the handler and
   * the audit are done: closing the index or the audit sink must wait for this instead. A call
   * still running after `graceMs` (a hung handler) is logged and left behind, so that shutdown
   * cannot hang forever. Returns how many were left. Idempotent.
   */
  async drain(graceMs = DRAIN_GRACE_MS): Promise<number> {
    this.closingNow = true;
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<"expired">((resolve) => {
      timer = setTimeout(() => resolve("expired"), graceMs);
    });
    try {
      while (this.calls.size > 0) {
        if ((await Promise.race([Promise.allSettled([...this.calls]), expired])) === "expired") {
          this.logger?.warn(
            `shutdown: ${this.calls.size} call(s) on ${this.kb} still running after ${graceMs} ms; closing without them (their audit completions will be missing)`,
          );
          break;
        }
      }
    } finally {
      clearTimeout(timer);
    }
    return this.calls.size;
  }
}
