/**
 * One mounted KB's runtime: the store, its search index, the write session of the call under
 * way and the calls in flight. `apply` is the only way a tool writes: the plan is written
 * atomically, the index re-synced for the touched ids, and the paths remembered for the one
 * commit the surface makes. Tools see it as a ToolRuntime (src/tools/tool-runtime.ts).
 */

import { isKbError } from "../common/errors.js";
import type { AppliedPlan, KbStore, WritePlan } from "../kb/core/api.js";
import type { ConceptDoc, KbSettings } from "../kb/core/types.js";
import { plannedDocs } from "../kb/store/planned-docs.js";
import type { KbSync } from "../kb/sync/kb-sync.js";
import { BuildStatus, type IndexProgress } from "../search/build-status.js";
import type { KbEmbeddings } from "../search/embeddings/kb-embeddings.js";
import type { SqliteSearchIndex } from "../search/sqlite-index.js";
import { PassQueue } from "../tools/pass-queue.js";
import type { ToolRuntime } from "../tools/tool-runtime.js";
import { CallTracker } from "./call-tracker.js";

/**
 * How long an index read waits for a build under way before answering from what is indexed
 * (with the build's progress in the result; docs/decisions.md "A search (and `concept_list`)
 * during a build waits").
 */
export const INDEX_WAIT_MS = 2_000;

export interface WriteSession {
  paths: Set<string>;
  targets: string[];
  /** Concept ids the applied plans touched (re-indexed again if the commit is rolled back). */
  ids: Set<string>;
}

/** Concept ids an index change touched and their documents (`docs[i]` null: removed). */
export type IndexedListener = (
  ids: readonly string[],
  docs: ReadonlyArray<ConceptDoc | null>,
) => void;

export class KbRuntime implements ToolRuntime {
  private session: WriteSession | null = null;
  /** Remote sync of this KB (docs/sync.md); absent when the KB is local only. Set by the mount. */
  sync?: KbSync;
  /** Semantic search (docs/search.md); absent without `search.embeddings`. Set by the mount. */
  embeddings?: KbEmbeddings;
  /**
   * Starts (once) the mount's deferred attach of `sync` and `embeddings` (after the KB is served:
   * docs/decisions.md "A served KB attaches remote sync") and resolves when it is done; rejects
   * with the reason they could not attach. The call pipeline awaits it before a handler. Absent:
   * nothing is deferred.
   */
  ready?: () => Promise<void>;
  /**
   * Whole-KB passes of this KB (lint, validate, graph_neighbors, …) run through this queue
   * (pass-queue.ts, default limits; docs/operations.md "Whole-KB passes").
   */
  passes = new PassQueue();
  /** The tool calls under way (the pipeline registers them; shutdown drains them). */
  readonly calls = new CallTracker();
  /** Told each index change a write makes (onIndexed). */
  private readonly indexedListeners = new Set<IndexedListener>();

  constructor(
    readonly store: KbStore,
    readonly index: SqliteSearchIndex,
    /** The index build's progress (ready unless the server builds it in the background). */
    readonly indexStatus: BuildStatus = new BuildStatus("ready"),
  ) {}

  /**
   * For reads answered from the index: waits up to `waitMs` for a build under way, then returns
   * null when the index is complete, else the progress to put in the result as `index`.
   */
  async awaitIndex(waitMs = INDEX_WAIT_MS): Promise<IndexProgress | null> {
    if (this.indexStatus.ready) return null;
    await this.indexStatus.settled(waitMs);
    if (this.indexStatus.ready) return null;
    const { state, done, total } = this.indexStatus.progress;
    return { state, done, total };
  }

  /**
   * Calls `listener` with the concept ids and documents (null: removed) of every index change a
   * write or a pull makes (an applied plan, a rolled-back commit's re-sync, a pull's re-index),
   * until the returned function
   * is called. The console renders
   * large bodies ahead of their first view from it (docs/decisions.md "Console: the first render
   * of a large concept"). A listener must not throw; one that does is ignored.
   */
  onIndexed(listener: IndexedListener): () => void {
    this.indexedListeners.add(listener);
    return () => this.indexedListeners.delete(listener);
  }

  get settings(): KbSettings {
    return this.store.settings;
  }

  /** Starts collecting applied paths for one write call (the surface calls this under the lock). */
  beginWrite(): WriteSession {
    this.session = { paths: new Set(), targets: [], ids: new Set() };
    return this.session;
  }

  endWrite(): void {
    this.session = null;
  }

  /** Applies a plan and keeps the index in step with it. */
  async apply(plan: WritePlan): Promise<AppliedPlan> {
    const applied = await this.store.apply(plan);
    for (const path of applied.paths) this.session?.paths.add(path);
    this.session?.targets.push(plan.target);
    for (const id of applied.touchedIds) this.session?.ids.add(id);
    // Indexed from what the plan wrote, not read back from disk (planned-docs.ts).
    this.indexDocs(applied.touchedIds, await plannedDocs(this.store, plan));
    return applied;
  }

  /**
   * The one commit of the write session under way (`<tool>: <target>`), or null when it applied
   * nothing. When the commit fails the store rolls the files back; the index follows them.
   */
  async commitSession(message: string): Promise<string | null> {
    const session = this.session;
    if (!session || session.paths.size === 0) return null;
    try {
      return await this.store.commit([...session.paths], message);
    } catch (err) {
      if (isKbError(err, "git_failed") && err.details?.rolledBack === true)
        await this.syncIndex([...session.ids]);
      throw err;
    }
  }

  /**
   * Re-reads the given concept ids into the index (removed when gone). Every file is read first,
   * then the index changes in one synchronous run, so no search sees half of a move (both ids).
   */
  async syncIndex(ids: string[]): Promise<void> {
    this.indexDocs(ids, await Promise.all(ids.map((id) => this.store.tryReadConcept(id))));
  }

  /** The index change of `ids` (`docs[i]` is the document of `ids[i]`, null when it is gone). */
  private indexDocs(ids: readonly string[], docs: ReadonlyArray<ConceptDoc | null>): void {
    ids.forEach((id, i) => {
      const doc = docs[i];
      if (doc) this.index.upsert(doc);
      else this.index.remove(id);
    });
    // Re-embeds the touched concepts in the background; the call does not wait for it.
    if (ids.length > 0) this.embeddings?.kick();
    this.announceIndexed(ids, docs);
  }

  /**
   * Tells the onIndexed listeners about an index change made outside a write (a pull's
   * reindexPaths in mount-sync.ts): what a teammate's instance wrote is rendered ahead here too.
   */
  announceIndexed(ids: readonly string[], docs: ReadonlyArray<ConceptDoc | null>): void {
    if (ids.length === 0) return;
    for (const listener of this.indexedListeners) {
      try {
        listener(ids, docs);
      } catch {
        // A listener's failure never disturbs the write.
      }
    }
  }
}
