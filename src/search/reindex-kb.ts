/**
 * A full rebuild of one KB's index (the `reindex` tool and CLI): every concept read, the whole
 * content swapped in one transaction. The incremental passes are in kb-index.ts.
 */
import type { KbStore } from "../kb/api.js";
import type { ConceptDoc } from "../kb/types.js";
import { silentLogger } from "../logger.js";
import type { ReconcileStats } from "./api.js";
import {
  type KbIndexOptions,
  kbIndexPath,
  LAYOUT_KEY,
  layoutSignature,
  readDocs,
  recovering,
} from "./kb-index.js";
import { isDamagedDbError } from "./open-db.js";
import type { FileStat } from "./rows.js";
import { openSearchIndex, type SqliteSearchIndex } from "./sqlite-index.js";

export interface ReindexOptions extends KbIndexOptions {
  /** Called as concepts are indexed (0 first, then every few hundred): `done` of `total`. */
  onProgress?: (done: number, total: number) => void;
  /** An index already open on this KB (the in-process `reindex` tool); opened and closed here otherwise. */
  index?: SqliteSearchIndex;
}

/**
 * Rebuilds the KB's index from scratch: reads every concept (readDocs), then swaps the whole
 * content in one transaction (readers see the old index until the commit; `onProgress` runs
 * synchronously inside it). Returns what changed
 * relative to the previous content.
 */
export async function reindexKb(
  store: KbStore,
  opts: ReindexOptions = {},
): Promise<ReconcileStats> {
  const index =
    opts.index ?? openSearchIndex(kbIndexPath(store), { logger: opts.logger ?? silentLogger });
  try {
    const maps = await store.maps();
    const layout = layoutSignature(maps);
    // Stat before reading: a file edited in between keeps an older stat and is re-read later.
    const files = await store.scanConceptFiles();
    const docs = await readDocs(store.root, maps, files, opts.logger);
    const entries: Array<{ doc: ConceptDoc; stat: FileStat }> = [];
    for (const file of files) {
      const doc = docs.get(file.id);
      if (doc) entries.push({ doc, stat: { mtimeMs: file.mtimeMs, size: file.size } });
    }
    // A damaged file cannot say what it held: everything then counts as added.
    let before = new Map<string, { hash: string }>();
    return await recovering(index, async () => {
      before = readableFiles(index);
      index.transaction(() => {
        index.replaceAll(entries, opts.onProgress);
        index.setMeta(LAYOUT_KEY, layout);
      });
      return diffStats(before, entries);
    });
  } finally {
    if (!opts.index) index.close();
  }
}

function readableFiles(index: SqliteSearchIndex): Map<string, { hash: string }> {
  try {
    return index.indexedFiles();
  } catch (err) {
    if (isDamagedDbError(err)) return new Map();
    throw err;
  }
}

function diffStats(
  before: Map<string, { hash: string }>,
  entries: Array<{ doc: ConceptDoc }>,
): ReconcileStats {
  const stats: ReconcileStats = { added: 0, changed: 0, removed: 0, unchanged: 0 };
  const now = new Set<string>();
  for (const { doc } of entries) {
    now.add(doc.id);
    const prev = before.get(doc.id);
    if (!prev) stats.added++;
    else if (prev.hash !== doc.hash) stats.changed++;
    else stats.unchanged++;
  }
  for (const id of before.keys()) if (!now.has(id)) stats.removed++;
  return stats;
}
