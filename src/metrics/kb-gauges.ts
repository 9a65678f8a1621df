/**
 * The per-KB gauges, filled from the scrape's snapshot (kb-snapshot.ts) when Prometheus scrapes.
 * Each is reset first, so a KB that is no longer watched leaves no stale series.
 */
import { Counter, Gauge, type Registry } from "prom-client";
import type { SyncState } from "../kb/core/types.js";
import {
  INDEX_STATES,
  type KbSnapshot,
  SEARCH_MEMORY_STATES,
  WORD_MEMORY_STATES,
} from "./kb-snapshot.js";

const SYNC_STATES: readonly SyncState[] = [
  "disabled",
  "no_remote",
  "clean",
  "pending",
  "failed",
  "diverged",
];

type Fill = (gauge: Gauge<string>, kb: KbSnapshot) => void;

export function registerKbGauges(registry: Registry, snapshot: () => Promise<KbSnapshot[]>) {
  const gauge = (name: string, help: string, labelNames: string[], fill: Fill) =>
    new Gauge({
      name,
      help,
      labelNames,
      registers: [registry],
      async collect() {
        const kbs = await snapshot();
        this.reset();
        for (const kb of kbs) fill(this, kb);
      },
    });
  gauge("cartographer_tool_calls_in_flight", "Tool calls under way", ["kb"], (g, kb) =>
    g.set({ kb: kb.kb }, kb.inFlight),
  );
  /** 1 for the KB's current state among `states`, 0 for the others; none when it has no state. */
  const stateGauge = (
    name: string,
    help: string,
    states: readonly string[],
    stateOf: (kb: KbSnapshot) => string | undefined,
  ) =>
    gauge(name, help, ["kb", "state"], (g, kb) => {
      const current = stateOf(kb);
      if (current === undefined) return;
      for (const state of states) g.set({ kb: kb.kb, state }, current === state ? 1 : 0);
    });
  stateGauge(
    "cartographer_index_state",
    "1 for the index build's current state (queued, building, ready, failed)",
    INDEX_STATES,
    (kb) => kb.index.state,
  );
  gauge("cartographer_index_build_done", "Concept files indexed by the build", ["kb"], (g, kb) =>
    g.set({ kb: kb.kb }, kb.index.done),
  );
  gauge("cartographer_index_build_total", "Concept files the build indexes", ["kb"], (g, kb) =>
    g.set({ kb: kb.kb }, kb.index.total),
  );
  stateGauge(
    "cartographer_search_memory_state",
    "1 for the state of the trigram ranker's memory (ready, stale, building, declined, off)",
    SEARCH_MEMORY_STATES,
    (kb) => kb.searchMemory?.state,
  );
  stateGauge(
    "cartographer_search_word_memory_state",
    "1 for the state of the word ranker's memory (ready, declined, off)",
    WORD_MEMORY_STATES,
    (kb) => kb.searchMemory?.words.state,
  );
  gauge(
    "cartographer_search_memory_bytes",
    "Bytes the search memories (trigram and word rankers) hold",
    ["kb"],
    (g, kb) => {
      const memory = kb.searchMemory;
      if (memory) g.set({ kb: kb.kb }, memory.bytes + memory.words.bytes);
    },
  );
  const sync = (
    name: string,
    help: string,
    value: (s: NonNullable<KbSnapshot["sync"]>) => number,
  ) =>
    gauge(name, help, ["kb"], (g, kb) => {
      if (kb.sync) g.set({ kb: kb.kb }, value(kb.sync));
    });
  stateGauge(
    "cartographer_sync_state",
    "1 for the KB's current sync state",
    SYNC_STATES,
    (kb) => kb.sync?.state,
  );
  sync(
    "cartographer_sync_pending_pushes",
    "Local commits not on the remote yet",
    (s) => s.pendingPushes,
  );
  sync("cartographer_sync_conflicts", "Unresolved sync conflicts", (s) => s.conflicts);
  sync("cartographer_sync_diverged", "1 when sync stopped on a diverged remote", (s) =>
    s.diverged ? 1 : 0,
  );
  sync(
    "cartographer_sync_seconds_since_last_pull",
    "Seconds since the last good pull (since the server started, before the first)",
    (s) => s.sinceLastPull,
  );
  sync(
    "cartographer_sync_seconds_since_last_push",
    "Seconds since a push last landed (since the server started, before the first)",
    (s) => s.sinceLastPush,
  );
  const embeddings = (
    name: string,
    help: string,
    value: (e: NonNullable<KbSnapshot["embeddings"]>) => number,
  ) =>
    gauge(name, help, ["kb"], (g, kb) => {
      if (kb.embeddings) g.set({ kb: kb.kb }, value(kb.embeddings));
    });
  embeddings(
    "cartographer_embeddings_queue_depth",
    "Concepts waiting to be embedded",
    (e) => e.queueDepth,
  );
  new Counter({
    name: "cartographer_search_memory_served_total",
    help: "Trigram and word rankers answered from memory since the index opened",
    labelNames: ["kb"],
    registers: [registry],
    async collect() {
      const kbs = await snapshot();
      this.reset();
      for (const kb of kbs) if (kb.searchMemory) this.inc({ kb: kb.kb }, kb.searchMemory.served);
    },
  });
  // A counter read at scrape time: the embeddings count the failed passes themselves.
  new Counter({
    name: "cartographer_embeddings_provider_errors_total",
    help: "Embedding passes the provider failed since the server started",
    labelNames: ["kb"],
    registers: [registry],
    async collect() {
      const kbs = await snapshot();
      this.reset();
      for (const kb of kbs)
        if (kb.embeddings) this.inc({ kb: kb.kb }, kb.embeddings.providerErrors);
    },
  });
}
