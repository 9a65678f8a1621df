/**
 * The contract of the SQLite index beyond SearchIndex (src/search/api.ts): the file bookkeeping,
 * bulk build and damage handling that openKbIndex/rebuildKbIndex and the background build use.
 * Implemented by sqlite-index.ts.
 */
import type Database from "better-sqlite3";
import type { ConceptDoc, Visibility } from "../kb/core/types.js";
import type { Logger } from "../logger.js";
import type { SearchIndex } from "./api.js";
import type { FileStat } from "./rows.js";
import type {
  SearchMemoryOptions,
  SearchMemoryOverrides,
  SearchMemoryStatus,
} from "./search-memory-options.js";
import type { PathExists } from "./search-query.js";

/** What the index remembers of a concept file, for the warm reconcile. */
export interface IndexedFile {
  path: string;
  hash: string;
  /** Frontmatter as stored (JSON): the hash ignores `timestamp`, the list bounds do not. */
  frontmatter: string;
  mtimeMs: number | null;
  size: number | null;
  /** When the stat was recorded (epoch ms); a file modified at or after it may be racily clean. */
  statAtMs: number | null;
}

/** SearchIndex plus the file bookkeeping openKbIndex/rebuildKbIndex use (additive to the contract). */
export interface SqliteSearchIndex extends SearchIndex {
  /** True when the database file was created empty at open (missing, corrupt, outdated) or since. */
  readonly fresh: boolean;
  /**
   * True once a query met a damaged file (SQLITE_CORRUPT and kin): the next refresh or reindex
   * calls recreate() and refills it (kb-index.ts).
   */
  readonly damaged: boolean;
  /**
   * Runs quick_check on a worker thread (an open with deferQuickCheck skipped it); a damaged
   * file marks the index damaged, so the next reconcile pass recreates and refills it. Skipped
   * for a file created at open or last closed cleanly by the previous process (clean-close.ts).
   */
  checkIntegrity(): Promise<"skipped" | "ok" | "damaged">;
  /**
   * Starts building the search memories (search-memory.ts) for a large index; call
   * once it is ready. Searches never wait for it.
   */
  warmSearch(): void;
  /** The search memories' state, size and use (search-memory.ts). */
  searchMemory(): SearchMemoryStatus;
  /** Moves the damaged file aside and continues on a fresh, empty one (refill it next). */
  recreate(reason: string): void;
  /** Which of `ids` are indexed and visible under `visibility` (one keyed query per chunk). */
  visibleIds(ids: readonly string[], visibility: Visibility): Set<string>;
  /** Inserts or replaces a concept; `stat` lets the next open skip the file while unchanged. */
  upsert(doc: ConceptDoc, stat?: FileStat): void;
  /**
   * Inserts or replaces many concepts in ONE transaction with no savepoint per row: FTS5 flushes
   * its pending terms to a new segment at every savepoint release, so one upsert() per row in a
   * bulk pass wrote one tiny segment per concept and merged them (the 6× slower served build,
   * docs/benchmarks.md). Ids written through upsert()/remove() since trackWrites() are skipped:
   * a tool wrote them after the bulk pass read its (older) copy.
   */
  upsertMany(entries: ReadonlyArray<{ doc: ConceptDoc; stat: FileStat }>): void;
  /**
   * Bulk mode for a first build into an empty index: secondary indexes dropped (rebuilt once by
   * `on = false`, far cheaper than maintained per row) and rows inserted without a prior delete,
   * into one transaction held across upsertMany calls (committed every few thousand rows and by
   * `on = false`; a failing call rolls back to the last commit), with FTS5 merging fewer, larger
   * segments and the ASCII rows' vocabulary filled from the word index at the end.
   */
  bulkMode(on: boolean): void;
  /**
   * In bulk mode, adds the next part of the vocabulary bulkMode defers (a step of ~0.1 s);
   * true once all of it is in (then and outside bulk mode, a no-op). Call between batches at
   * the end of a build, so `bulkMode(false)` has nothing left to fill.
   */
  fillVocabularyStep(): boolean;
  /**
   * Returns memory a build used: SQLite's page cache of this connection (up to 64 MiB each, so
   * 50 KBs held ~0.8 GB after their builds) and the vocabulary's in-memory token set (reloaded
   * on the next write).
   */
  shrinkMemory(): void;
  /**
   * Starts recording the ids upsert()/remove() touch (a tool's write during a background build);
   * the returned set fills until stopTracking(). One tracker at a time.
   */
  trackWrites(): ReadonlySet<string>;
  stopTracking(): void;
  /**
   * Stored path/hash/stat per indexed id; with `page`, only the first `limit` ids after `after`
   * (in id order), so a caller can read a large index in steps and let other calls run between.
   */
  indexedFiles(page?: { after: string; limit: number }): Map<string, IndexedFile>;
  /** Stored path/hash/stat of the given ids (those indexed). */
  indexedFilesOf(ids: readonly string[]): Map<string, IndexedFile>;
  /** Records a fresh stat for an unchanged concept. */
  touchStat(id: string, stat: FileStat): void;
  /** Replaces the whole content in one transaction (a full rebuild), reporting progress. */
  replaceAll(
    entries: Array<{ doc: ConceptDoc; stat?: FileStat }>,
    onProgress?: (done: number, total: number) => void,
  ): void;
  getMeta(key: string): string | null;
  setMeta(key: string, value: string): void;
  /** Runs fn in one write transaction (fast bulk changes). */
  transaction<T>(fn: () => T): T;
  /** The open handle (a new one after recreate()): embeddings keep their tables in this file. */
  database(): Database.Database;
}

export interface OpenSearchIndexOptions {
  logger?: Logger;
  /**
   * Whether a KB-root-relative path still names a file. When given, search and list drop rows
   * whose file is gone (moved or deleted since it was indexed) before answering.
   */
  exists?: PathExists;
  /** See OpenDbOptions.deferQuickCheck (the background build runs checkIntegrity()). */
  deferQuickCheck?: boolean;
  /** Bounds and pace of the search memories (search-memory.ts); tests lower them. */
  searchMemory?: SearchMemoryOverrides;
}

/** What an open index keeps of its options (openSearchIndex fills the trigram defaults). */
export interface IndexOptions {
  dbPath: string;
  logger: Logger;
  exists?: PathExists;
  memory: Omit<SearchMemoryOptions, "dbPath" | "logger">;
}
