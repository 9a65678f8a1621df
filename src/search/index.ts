/** Public entry points of the search layer. */
export type * from "./api.js";
export {
  buildKbIndex,
  INDEX_DB_PATH,
  kbIndexPath,
  type OpenedKbIndex,
  openKbIndex,
  openKbIndexFile,
  type PassControl,
} from "./kb-index.js";
export { type RebuildOptions, rebuildKbIndex } from "./rebuild-kb-index.js";
export { parseTimestamp } from "./rows.js";
export {
  type IndexedFile,
  type OpenSearchIndexOptions,
  openSearchIndex,
  type SqliteSearchIndex,
} from "./sqlite-index.js";
export { visibilitySql } from "./visibility-sql.js";
