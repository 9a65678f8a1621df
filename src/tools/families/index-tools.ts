import type { BuildStatus } from "../../search/build-status.js";
import { buildKbIndex, rebuildKbIndex } from "../../search/index.js";
import { Cooldown } from "../cooldown.js";
import { defineTool } from "../define.js";
import type { ToolSpec } from "../spec.js";

/** How often `reindex` reports a background build's progress while it waits for it. */
const REINDEX_POLL_MS = 250;

/** At most one full rebuild per KB per 30 s (one takes 0.6–1.4 s on 10,000 concepts). */
const rebuildCooldown = new Cooldown<object>(30_000, "index_rebuild");

const indexRebuild = defineTool({
  name: "index_rebuild",
  description:
    "Rebuild the search index from scratch from the files on disk; returns added/changed/removed counts. At most once per 30 s per KB (rate_limited).",
  readOnly: false,
  advanced: true,
  idempotent: true,
  resource: "whole",
  auditFields: [],
  wholeKbPass: () => true,
  handler: async (_args, ctx) => {
    rebuildCooldown.take(ctx.runtime, ctx.now());
    const started = Date.now();
    const { store, index, indexStatus } = ctx.runtime;
    // Never two passes over one index at once: the server's own build finishes first.
    await buildSettled(indexStatus);
    // Batched like a first build (docs/decisions.md "A full rebuild"): searches meanwhile answer
    // from what is indexed and say so (the `index` field), and no batch holds up the calls of other
    // KBs.
    indexStatus.set("building", 0, 0);
    try {
      const stats = await rebuildKbIndex(store, {
        index,
        onProgress: (done, total) => {
          indexStatus.set("building", done, total);
          ctx.progress?.(done, total);
        },
      });
      const { total } = indexStatus.progress;
      indexStatus.set("ready", total, total);
      return { ...stats, total: index.count(), ms: Date.now() - started };
    } catch (err) {
      const { done, total } = indexStatus.progress;
      indexStatus.set("failed", done, total, "index_rebuild did not finish: call it again");
      throw err;
    }
  },
});

const reindex = defineTool({
  name: "reindex",
  description:
    "Reconcile the search index with the files on disk by content hash (after edits outside the tools).",
  readOnly: false,
  advanced: true,
  idempotent: true,
  resource: "whole",
  auditFields: [],
  wholeKbPass: () => true,
  handler: async (_args, ctx) => {
    const started = Date.now();
    const { store, index, indexStatus } = ctx.runtime;
    // The server's background build does this same pass: wait for it (reporting its progress)
    // rather than run two passes at once, then run one more for edits made since.
    await buildSettled(indexStatus, ctx.progress);
    // Batched, yielding between batches: `done` of `total` concept files, 0 first.
    let first = true;
    const stats = await buildKbIndex(store, index, {
      full: true, // every file, also edits git does not see (docs/search.md)
      onProgress: (done, total) => {
        if (first && done > 0) ctx.progress?.(0, total);
        first = false;
        ctx.progress?.(done, total);
      },
    });
    return { ...stats, total: index.count(), ms: Date.now() - started };
  },
});

/** Waits for the server's build of this index (queued or building), reporting its progress. */
async function buildSettled(
  status: BuildStatus,
  progress?: (done: number, total?: number) => void,
): Promise<void> {
  while (status.progress.state === "queued" || status.progress.state === "building") {
    const { done, total } = status.progress;
    if (total > 0) progress?.(done, total);
    await status.settled(REINDEX_POLL_MS);
  }
}

export const indexTools: ToolSpec[] = [indexRebuild, reindex];
