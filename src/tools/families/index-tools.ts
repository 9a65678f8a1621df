/**
 * Search-index maintenance (advanced). The index is derived data: neither tool changes the KB
 * or makes a commit. Both are whole-KB writes (admin or full read-write on the KB), so they run
 * one at a time under the KB write lock. `index_rebuild` (every file read, the whole index
 * swapped) is also rate-limited per KB (docs/decisions.md).
 */
import type { SearchIndex } from "../../search/api.js";
import { reindexKb, type SqliteSearchIndex } from "../../search/index.js";
import { Cooldown } from "../cooldown.js";
import { defineTool } from "../define.js";
import type { ToolSpec } from "../spec.js";

/** At most one full rebuild per KB per 30 s (one takes 0.6–1.4 s on 10,000 concepts). */
const rebuildCooldown = new Cooldown<object>(30_000, "index_rebuild");

function asSqlite(index: SearchIndex): SqliteSearchIndex | null {
  const candidate = index as Partial<SqliteSearchIndex>;
  return typeof candidate.replaceAll === "function" && typeof candidate.indexedFiles === "function"
    ? (index as SqliteSearchIndex)
    : null;
}

const indexRebuild = defineTool({
  name: "index_rebuild",
  description:
    "Rebuild the search index from scratch from the files on disk; returns added/changed/removed counts. At most once per 30 s per KB (rate_limited).",
  readOnly: false,
  advanced: true,
  idempotent: true,
  resource: "whole",
  auditFields: [],
  handler: async (_args, ctx) => {
    rebuildCooldown.take(ctx.runtime, ctx.now());
    const started = Date.now();
    const { store, index } = ctx.runtime;
    const sqlite = asSqlite(index);
    if (sqlite) {
      const stats = await reindexKb(store, { index: sqlite });
      return { ...stats, total: index.count(), ms: Date.now() - started };
    }
    // Another SearchIndex implementation: re-upsert everything, drop what vanished.
    const docs = await store.listConcepts();
    const present = new Set(docs.map((d) => d.id));
    const indexed = index.list({ limit: index.count() + 1, visibility: { all: true } }).items;
    let removed = 0;
    for (const item of indexed) {
      if (!present.has(item.id)) {
        index.remove(item.id);
        removed++;
      }
    }
    for (const doc of docs) index.upsert(doc);
    return {
      added: docs.length,
      changed: 0,
      removed,
      unchanged: 0,
      total: index.count(),
      ms: Date.now() - started,
    };
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
  handler: async (_args, ctx) => {
    const started = Date.now();
    const { store, index } = ctx.runtime;
    const docs = await store.listConcepts();
    ctx.progress?.(1, 2); // files read; reconciling follows
    const stats = index.reconcile(docs);
    return { ...stats, total: index.count(), ms: Date.now() - started };
  },
});

export const indexTools: ToolSpec[] = [indexRebuild, reindex];
