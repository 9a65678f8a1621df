/**
 * What a tool handler sees of the KB it runs on: the store, the search index (the concrete
 * SQLite one: index tools rebuild it in place), the index build's progress, remote sync when the
 * KB has one, and `apply`, the only way a tool writes. The runtime layer (src/runtime/kb-runtime.ts)
 * implements it, with the lifecycle a handler must not touch (write sessions, commits, drains).
 */
import type { AppliedPlan, KbStore, WritePlan } from "../kb/core/api.js";
import type { KbSettings } from "../kb/core/types.js";
import type { KbSync } from "../kb/sync/kb-sync.js";
import type { BuildStatus, IndexProgress } from "../search/build-status.js";
import type { KbEmbeddings } from "../search/embeddings/kb-embeddings.js";
import type { SqliteSearchIndex } from "../search/sqlite-index.js";

export interface ToolRuntime {
  readonly store: KbStore;
  readonly index: SqliteSearchIndex;
  /** The index build's progress (ready unless the server builds it in the background). */
  readonly indexStatus: BuildStatus;
  readonly settings: KbSettings;
  /** Remote sync of this KB; absent when the KB is local only. */
  readonly sync?: KbSync;
  /** Semantic search; absent without `search.embeddings`. */
  readonly embeddings?: KbEmbeddings;
  /**
   * For reads answered from the index: waits up to `waitMs` for a build under way, then returns
   * null when the index is complete, else the progress to put in the result as `index`.
   */
  awaitIndex(waitMs?: number): Promise<IndexProgress | null>;
  /** Applies a plan and keeps the index in step with it. */
  apply(plan: WritePlan): Promise<AppliedPlan>;
}
