/**
 * The per-KB state the gauges report, read from the runtimes when Prometheus scrapes
 * (docs/decisions.md "Metrics: gauges are read at scrape time"): nothing on the call path
 * updates them. One snapshot per scrape: the sync facts cost a few git reads per KB, so every
 * gauge of a scrape shares one read of them.
 */
import type { KbSync } from "../kb/sync/kb-sync.js";
import type { KbRuntime } from "../runtime/kb-runtime.js";
import type { IndexState } from "../search/build-status.js";
import type { SearchMemoryStatus } from "../search/search-memory-options.js";

export const INDEX_STATES: readonly IndexState[] = ["queued", "building", "ready", "failed"];
export const SEARCH_MEMORY_STATES: readonly SearchMemoryStatus["state"][] = [
  "ready",
  "stale",
  "building",
  "declined",
  "off",
];
export const WORD_MEMORY_STATES: readonly SearchMemoryStatus["words"]["state"][] = [
  "ready",
  "declined",
  "off",
];

export interface KbSnapshot {
  kb: string;
  inFlight: number;
  index: { state: IndexState; done: number; total: number };
  /** Absent when the KB has no remote sync attached (local only, or not attached yet). */
  sync?: {
    state: string;
    pendingPushes: number;
    conflicts: number;
    diverged: boolean;
    /** Seconds since the last good pull / landed push; since the KB was watched when none yet. */
    sinceLastPull: number;
    sinceLastPush: number;
  };
  /** Absent without semantic search. */
  embeddings?: { queueDepth: number; providerErrors: number };
  /** The search memories (search-memory.ts); absent until the index is ready. */
  searchMemory?: SearchMemoryStatus;
}

export interface WatchedKb {
  readonly name: string;
  readonly runtime: KbRuntime;
  /** When the metrics started watching it (ms): the age reported before a first pull or push. */
  readonly since: number;
}

export async function snapshotOf(kb: WatchedKb, now: number): Promise<KbSnapshot> {
  const { runtime } = kb;
  const { state, done, total } = runtime.indexStatus.progress;
  const out: KbSnapshot = {
    kb: kb.name,
    inFlight: runtime.calls.inFlight,
    index: { state, done, total },
  };
  // Read only once the index is open and built: a scrape never opens a queued KB's index.
  if (state === "ready") {
    try {
      out.searchMemory = runtime.index.searchMemory();
    } catch {
      // The index is closing: no search memory facts this scrape.
    }
  }
  // A KB closing under the scrape loses its sync or embeddings facts, never the scrape.
  const sync = runtime.sync;
  if (sync?.active) out.sync = await syncFacts(sync, kb.since, now).catch(() => undefined);
  const embeddings = runtime.embeddings;
  if (embeddings) {
    try {
      out.embeddings = {
        queueDepth: embeddings.store.staleConcepts().length,
        providerErrors: embeddings.providerErrors,
      };
    } catch {
      // The vector store is closed: no embeddings facts this scrape.
    }
  }
  return out;
}

async function syncFacts(sync: KbSync, since: number, now: number): Promise<KbSnapshot["sync"]> {
  const status = await sync.status();
  const age = (at: number) => Math.max(0, (now - (at > 0 ? at : since)) / 1000);
  return {
    state: status.state,
    pendingPushes: status.unpushed,
    conflicts: status.conflicts,
    diverged: sync.haltKind === "diverged",
    sinceLastPull: age(status.last_pull_at ? Date.parse(status.last_pull_at) : 0),
    sinceLastPush: age(sync.lastPushAt),
  };
}
