/**
 * The background index refresh of a mounted KB: the stat-based reconcile run every
 * `index.refresh_seconds`, under the KB's write lock, so edits made outside the tools reach
 * search (docs/operations.md); what it indexes is announced like a write's own index change.
 */
import type { KbStore } from "../kb/core/api.js";
import type { ConceptDoc } from "../kb/core/types.js";
import type { Logger } from "../logger.js";
import { refreshKbIndex } from "../search/kb-index.js";
import type { SqliteSearchIndex } from "../search/sqlite-index.js";
import type { KbRuntime } from "./kb-runtime.js";

export interface IndexRefresh {
  readonly intervalMs: number;
  /** Stops the timer; resolves once a run under way has finished. Idempotent. */
  stop(): Promise<void>;
}

/**
 * Every `intervalMs`, runs the stat-based reconcile (refreshKbIndex) under the KB's write lock,
 * so it never races a tool write. The next run is scheduled only when one ends (runs never
 * overlap) on an unref'd timer (it never keeps the process alive). A failure is a warning,
 * logged once per run of consecutive failures, never a crash: the index is derived data.
 */
export function startIndexRefresh(
  store: KbStore,
  index: SqliteSearchIndex,
  opts: {
    intervalMs: number;
    logger: Logger;
    kb: string;
    /** Told what each run added or changed (announcer: the runtime's onIndexed listeners). */
    onIndexed?: (docs: readonly ConceptDoc[]) => void;
  },
): IndexRefresh {
  const { intervalMs, logger, kb, onIndexed } = opts;
  let stopped = false;
  let failing = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | null = null;

  const runOnce = async (): Promise<void> => {
    try {
      // stop() may have come while this run waited for the lock: no use reconciling an index
      // that is about to close.
      const stats = await store.withLock(async () =>
        stopped ? null : refreshKbIndex(store, index, onIndexed ? { onIndexed } : {}),
      );
      if (failing) logger.info(`index refresh of KB '${kb}' works again`);
      failing = false;
      if (stats && stats.added + stats.changed + stats.removed > 0)
        logger.info(
          `index refresh of KB '${kb}': ${stats.added} added, ${stats.changed} changed, ${stats.removed} removed`,
        );
    } catch (err) {
      if (!failing)
        logger.warn(
          `index refresh of KB '${kb}' failed: ${(err as Error).message ?? err}; search and concept_list may miss edits made outside the server until a refresh succeeds (retrying every ${intervalMs / 1000} s, further failures not logged)`,
        );
      failing = true;
    }
  };
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = runOnce().finally(() => {
        running = null;
        schedule();
      });
    }, intervalMs);
    timer.unref();
  };
  schedule();
  return {
    intervalMs,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}

/**
 * Hands what a refresh indexed to the runtime's onIndexed listeners, as a write's own index
 * change does: a large concept edited outside the tools is rendered ahead by the console too
 * (docs/decisions.md "Console: the first render of a large concept").
 */
export function announcer(runtime: KbRuntime): (docs: readonly ConceptDoc[]) => void {
  return (docs) =>
    runtime.announceIndexed(
      docs.map((d) => d.id),
      docs,
    );
}
