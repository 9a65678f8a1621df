/**
 * Lint figures for the home and KB pages without making them wait for a whole-KB pass
 * (docs/decisions.md "Console: lint figures are cached per principal"). `lint` runs as the
 * viewer (the same tool, the same authorization: a reader without whole-KB access is refused it,
 * so nothing hidden is ever counted), in the background; the page shows the last result younger
 * than the TTL, or "computing" while the first pass runs. Keyed by principal id and KB, bounded.
 */
import type { ToolOutcome } from "./outcome.js";
import type { Viewer } from "./types.js";

/** Runs `lint` on `kb` as `viewer` (ConsoleKbs.call). */
export type LintRun = (
  viewer: Viewer,
  kb: string,
) => Promise<ToolOutcome<{ errors: number; warnings: number }>>;

export const LINT_TTL_MS = 300_000;
const MAX_ENTRIES = 256;

export type LintFigures =
  | { state: "ready"; errors: number; warnings: number; at: number }
  | { state: "computing" }
  | { state: "unavailable"; reason: string };

interface Entry {
  figures: LintFigures;
  at: number;
  running: Promise<void> | null;
}

export class LintCache {
  readonly #entries = new Map<string, Entry>();
  constructor(
    private readonly run: LintRun,
    private readonly now: () => number = Date.now,
    private readonly ttlMs = LINT_TTL_MS,
  ) {}

  /** The figures to show now; starts a pass when there are none or they are older than the TTL. */
  figures(viewer: Viewer, kb: string): LintFigures {
    const key = `${viewer.principal.id}\u0000${kb}`;
    const entry = this.#entries.get(key);
    const now = this.now();
    if (entry !== undefined && (entry.running !== null || now - entry.at < this.ttlMs))
      return entry.figures;
    const next: Entry = {
      figures: entry?.figures ?? { state: "computing" },
      at: now,
      running: null,
    };
    this.#entries.delete(key);
    this.#entries.set(key, next);
    while (this.#entries.size > MAX_ENTRIES)
      this.#entries.delete(this.#entries.keys().next().value as string);
    next.running = this.#run(viewer, kb, next);
    return next.figures;
  }

  /** Resolves when every pass under way has finished (tests, benchmarks). */
  async settled(): Promise<void> {
    await Promise.all([...this.#entries.values()].map((e) => e.running));
  }

  async #run(viewer: Viewer, kb: string, entry: Entry): Promise<void> {
    const r = await this.run(viewer, kb).catch(() => null);
    entry.at = this.now();
    entry.running = null;
    if (r === null) entry.figures = { state: "unavailable", reason: "lint failed" };
    else if (r.ok)
      entry.figures = {
        state: "ready",
        errors: r.value.errors,
        warnings: r.value.warnings,
        at: entry.at,
      };
    else
      entry.figures = {
        state: "unavailable",
        reason: r.code === "forbidden" ? "needs whole-KB read access" : r.code,
      };
  }
}
