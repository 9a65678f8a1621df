/**
 * The per-KB queue of whole-KB passes (lint, validate, gate_check, graph_neighbors, …; the tools
 * whose spec has `wholeKbPass`). A pass reads every concept, so a burst of them from one token
 * could exhaust the heap or stall every other call (docs/decisions.md "Whole-KB pass queue"):
 *
 *   running < concurrency, nobody waiting      → runs now
 *   the principal holds perPrincipal passes    → `busy` at once (running + waiting, this KB)
 *   `queued` passes already waiting            → `busy` at once
 *   otherwise                                  → waits; still waiting after waitMs → `busy`
 *
 * A freed slot goes to the waiter whose principal runs the fewest passes (first come first among
 * equals), so one principal's backlog never keeps another's pass waiting behind it. In memory,
 * per KB runtime; a restart forgets it.
 */
import { KbError } from "../common/errors.js";

export interface PassLimits {
  /** Passes running at once on one KB. */
  concurrency: number;
  /** Passes one principal may have running or waiting on one KB. */
  perPrincipal: number;
  /** Passes that may wait for a slot on one KB. */
  queued: number;
  /** How long a pass waits for a slot before it is answered `busy`. */
  waitMs: number;
}

export const DEFAULT_PASS_LIMITS: Readonly<PassLimits> = {
  concurrency: 2,
  perPrincipal: 4,
  queued: 16,
  waitMs: 30_000,
};

interface Waiter {
  principal: string;
  start: () => void;
  timer: NodeJS.Timeout;
}

export class PassQueue {
  private running = 0;
  private readonly waiting: Waiter[] = [];
  /** Passes per principal: running and waiting. */
  private readonly held = new Map<string, number>();
  private readonly runningOf = new Map<string, number>();

  constructor(readonly limits: Readonly<PassLimits> = DEFAULT_PASS_LIMITS) {}

  /** What is under way now (kb_status, tests). */
  get stats(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }

  /**
   * Runs `pass` for `principal` when a slot is free; `tool` names it in a `busy` error.
   * Throws `busy` (nothing ran) when the principal's share or the queue is full, or the wait
   * ran out.
   */
  async run<T>(principal: string, tool: string, pass: () => Promise<T>): Promise<T> {
    const { concurrency, perPrincipal, queued, waitMs } = this.limits;
    const held = this.held.get(principal) ?? 0;
    if (held >= perPrincipal) {
      throw busy(
        `${tool}: this token already has ${held} whole-KB passes running or waiting on this KB (limit ${perPrincipal}): wait for one to answer, then retry`,
      );
    }
    if (this.running >= concurrency || this.waiting.length > 0) {
      if (this.waiting.length >= queued) {
        throw busy(
          `${tool}: ${this.running} whole-KB passes are running and ${this.waiting.length} waiting on this KB (limit ${queued} waiting): retry in a few seconds`,
        );
      }
      this.hold(principal, 1);
      try {
        await this.wait(principal, tool, waitMs);
      } catch (err) {
        this.hold(principal, -1);
        throw err;
      }
    } else {
      this.hold(principal, 1);
      this.startRunning(principal);
    }
    try {
      return await pass();
    } finally {
      this.running--;
      const still = (this.runningOf.get(principal) ?? 1) - 1;
      if (still > 0) this.runningOf.set(principal, still);
      else this.runningOf.delete(principal);
      this.hold(principal, -1);
      this.next();
    }
  }

  private wait(principal: string, tool: string, waitMs: number): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        principal,
        start: () => {
          clearTimeout(waiter.timer);
          this.startRunning(principal);
          resolve();
        },
        timer: setTimeout(() => {
          const at = this.waiting.indexOf(waiter);
          if (at >= 0) this.waiting.splice(at, 1);
          reject(
            busy(
              `${tool}: waited ${waitMs / 1000} s for one of the ${this.limits.concurrency} whole-KB pass slots of this KB: retry later`,
            ),
          );
        }, waitMs),
      };
      this.waiting.push(waiter);
    });
  }

  /** Starts the waiter whose principal runs the fewest passes (earliest among equals). */
  private next(): void {
    if (this.running >= this.limits.concurrency || this.waiting.length === 0) return;
    let best = 0;
    for (let i = 1; i < this.waiting.length; i++) {
      const load = (w: Waiter | undefined) => this.runningOf.get(w?.principal ?? "") ?? 0;
      if (load(this.waiting[i]) < load(this.waiting[best])) best = i;
    }
    const [waiter] = this.waiting.splice(best, 1);
    waiter?.start();
  }

  private startRunning(principal: string): void {
    this.running++;
    this.runningOf.set(principal, (this.runningOf.get(principal) ?? 0) + 1);
  }

  private hold(principal: string, delta: number): void {
    const n = (this.held.get(principal) ?? 0) + delta;
    if (n > 0) this.held.set(principal, n);
    else this.held.delete(principal);
  }
}

function busy(message: string): KbError {
  return new KbError("busy", message);
}
