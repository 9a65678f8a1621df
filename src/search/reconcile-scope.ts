/**
 * Which concept files a reconcile pass looks at (docs/decisions.md "A reconcile pass asks git what
 * changed"). With a git snapshot recorded by the last pass, only the paths git names as possibly
 * changed since (working-tree.ts) are stat'ed and compared, and every other row stands: a warm open
 * of 100,000 concepts no longer stats every file and reads every stored row. Without one (first
 * build, no git, a changed map layout, git unable to answer) the pass walks every file as before.
 */
import type { ConceptFileStat, KbStore } from "../kb/core/api.js";
import type { MapDescriptor } from "../kb/core/types.js";
import {
  changedBetween,
  statConceptPaths,
  type TreeSnapshot,
  treeSnapshot,
} from "../kb/store/working-tree.js";
import type { SqliteSearchIndex } from "./sqlite-index.js";
import type { IndexedFile } from "./sqlite-index-api.js";

/** Meta key of the snapshot the index's content was reconciled against ("" = none). */
const TREE_KEY = "tree";
/** A snapshot naming more paths than this is not recorded (the next pass walks everything). */
const MAX_RECORDED_PATHS = 20_000;

export interface PassScope {
  /** Concept files to compare with their rows (all of them, or those git names). */
  files: ConceptFileStat[];
  /** Stored rows of the ids looked at: a row here whose file is not in `files` is removed. */
  known: Map<string, IndexedFile>;
  /** Rows left as they are without a look (0 for a full walk). */
  untouched: number;
  /** The snapshot to record once the pass has ended (null: remove the recorded one). */
  snapshot: TreeSnapshot | null;
}

/**
 * The scope of a pass: the paths git names since the recorded snapshot, or everything.
 * `readAll` gives the full walk's files and rows (the pass's own stepwise reader).
 */
export async function passScope(
  store: KbStore,
  maps: readonly MapDescriptor[],
  index: SqliteSearchIndex,
  /** A changed map layout, or a caller asking for a full walk. */
  walkAll: boolean,
  readAll: () => Promise<Map<string, IndexedFile>>,
): Promise<PassScope> {
  const snapshot = await treeSnapshot(store.root);
  const recorded = readSnapshot(index.getMeta(TREE_KEY));
  if (snapshot && recorded && !walkAll) {
    const paths = await changedBetween(store.root, recorded, snapshot);
    if (paths !== null) {
      const { files, ids } = statConceptPaths(store.root, maps, paths);
      const known = index.indexedFilesOf([...ids]);
      return { files, known, untouched: index.count() - known.size, snapshot };
    }
  }
  const files = await store.scanConceptFiles();
  return { files, known: await readAll(), untouched: 0, snapshot };
}

/**
 * Records what the index now reflects: the snapshot taken before the pass, plus the paths the
 * pass read, so a file edited while the pass read it and then put back to its committed content
 * still gets a look next time. A pass that read more than MAX_RECORDED_PATHS files (a first
 * build) records the snapshot alone: that one case is then missed until the file changes again
 * or `reindex` runs (docs/search.md). Call in the pass's last transaction.
 */
export function recordSnapshot(
  index: SqliteSearchIndex,
  snapshot: TreeSnapshot | null,
  readPaths: readonly string[],
): void {
  let record = "";
  if (snapshot) {
    const withRead = [...new Set([...snapshot.dirty, ...readPaths])];
    const dirty = withRead.length <= MAX_RECORDED_PATHS ? withRead : snapshot.dirty;
    if (dirty.length <= MAX_RECORDED_PATHS) record = JSON.stringify({ head: snapshot.head, dirty });
  }
  index.setMeta(TREE_KEY, record);
}

function readSnapshot(text: string | null): TreeSnapshot | null {
  if (!text) return null;
  try {
    const v = JSON.parse(text) as TreeSnapshot;
    return typeof v.head === "string" && Array.isArray(v.dirty) ? v : null;
  } catch {
    return null;
  }
}
