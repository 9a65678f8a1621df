/**
 * A full rebuild of one KB's index (the `index_rebuild` tool and the `reindex` CLI): the index
 * is emptied, then filled by the same batched pass as a server's first build (kb-index.ts:
 * bulk mode, one batch of documents in memory, the event loop free between batches). Vectors
 * (embeddings) stay: only the keyword tables are emptied. The incremental passes are in
 * kb-index.ts.
 */
import type { KbStore } from "../kb/core/api.js";
import { silentLogger } from "../logger.js";
import type { ReconcileStats } from "./api.js";
import {
  buildKbIndex,
  indexedFilesInSteps,
  type KbIndexOptions,
  kbIndexPath,
  type PassControl,
  recovering,
} from "./kb-index.js";
import { isDamagedDbError } from "./open-db.js";
import { openSearchIndex, type SqliteSearchIndex } from "./sqlite-index.js";

export interface RebuildOptions extends KbIndexOptions, Pick<PassControl, "reader" | "signal"> {
  /** Called as concepts are indexed (0 first, then after each batch): `done` of `total`. */
  onProgress?: (done: number, total: number) => void;
  /** An index already open on this KB (the in-process tool); opened and closed here otherwise. */
  index?: SqliteSearchIndex;
}

/**
 * Rebuilds the KB's index from scratch and returns what changed relative to the previous
 * content. Searches on the same index meanwhile answer from what is indexed so far (the tool
 * reports the build through the KB's index status, as a first build does; docs/decisions.md "A full
 * rebuild"). It used to swap the rows in one transaction: every document in memory at once
 * (~0.75 GB at 100,000 concepts) and the event loop held for the whole insert (~1.2 s per 10,000
 * concepts).
 */
export async function rebuildKbIndex(
  store: KbStore,
  opts: RebuildOptions = {},
): Promise<ReconcileStats> {
  const logger = opts.logger ?? silentLogger;
  const index = opts.index ?? openSearchIndex(kbIndexPath(store), { logger });
  try {
    // A damaged file cannot say what it held: everything then counts as added.
    let before = new Map<string, { hash: string }>();
    return await recovering(index, async () => {
      before = await readableFiles(index);
      index.replaceAll([]); // empty: the pass below is a first build
      await buildKbIndex(store, index, {
        full: true,
        logger,
        ...(opts.onProgress ? { onProgress: opts.onProgress } : {}),
        ...(opts.reader ? { reader: opts.reader } : {}),
        ...(opts.signal ? { signal: opts.signal } : {}),
        ...(opts.bulkReadThreshold !== undefined
          ? { bulkReadThreshold: opts.bulkReadThreshold }
          : {}),
      });
      return diffStats(before, await hashesInSteps(index));
    });
  } finally {
    if (!opts.index) index.close();
  }
}

async function readableFiles(index: SqliteSearchIndex): Promise<Map<string, { hash: string }>> {
  try {
    return await hashesInSteps(index);
  } catch (err) {
    if (isDamagedDbError(err)) return new Map();
    throw err;
  }
}

/** Every indexed id with its content hash only (whole rows of 100,000 concepts: ~200 MB). */
const hashesInSteps = (index: SqliteSearchIndex) =>
  indexedFilesInSteps(index, (file) => ({ hash: file.hash }));

function diffStats(
  before: Map<string, { hash: string }>,
  after: Map<string, { hash: string }>,
): ReconcileStats {
  const stats: ReconcileStats = { added: 0, changed: 0, removed: 0, unchanged: 0 };
  for (const [id, { hash }] of after) {
    const prev = before.get(id);
    if (!prev) stats.added++;
    else if (prev.hash !== hash) stats.changed++;
    else stats.unchanged++;
  }
  for (const id of before.keys()) if (!after.has(id)) stats.removed++;
  return stats;
}
