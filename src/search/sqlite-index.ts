/**
 * The SQLite FTS5 implementation of SearchIndex (src/search/api.ts).
 */
import type Database from "better-sqlite3";
import { KbError } from "../common/errors.js";
import type { ConceptDoc } from "../kb/core/types.js";
import { silentLogger } from "../logger.js";
import type { ListQuery, ListResult, ReconcileStats, SearchQuery, SearchResult } from "./api.js";
import { takePreparedRow } from "./build-reader.js";
import {
  BULK_BUILD_KEY,
  BULK_CACHE_KIB,
  BULK_COMMIT_ROWS,
  setBulkFtsOptions,
} from "./bulk-settings.js";
import { markCleanClose, takeCleanClose } from "./clean-close.js";
import {
  insertConceptRow,
  removeConceptRow,
  storedChange,
  touchConceptStat,
} from "./concept-rows.js";
import { HeldTransaction } from "./held-transaction.js";
import { readMeta, writeMeta } from "./index-meta.js";
import { indexedFilesById, indexedFilesPage } from "./indexed-files.js";
import { quickCheckInWorker } from "./integrity-check.js";
import { runList, runVisibleIds } from "./list-query.js";
import { CACHE_KIB, isDamagedDbError, openIndexDb, recreateIndexDb } from "./open-db.js";
import type { FileStat } from "./rows.js";
import { createIndexes, createSchema, dropIndexes, dropSchema } from "./schema.js";
import { SearchMemory } from "./search-memory.js";
import { memoryOptions } from "./search-memory-options.js";
import { runSearch } from "./search-query.js";
import type {
  IndexedFile,
  IndexOptions,
  OpenSearchIndexOptions,
  SqliteSearchIndex,
} from "./sqlite-index-api.js";
import { StatementCache } from "./statement-cache.js";
import { fillVocabulary, fillVocabularyStep, Vocabulary } from "./vocabulary.js";

export type {
  IndexedFile,
  OpenSearchIndexOptions,
  SqliteSearchIndex,
} from "./sqlite-index-api.js";

/**
 * Opens the index at `dbPath` (`:memory:` for a throwaway index). A missing, corrupt or
 * outdated file is replaced by an empty index with a warning (never fatal); the caller then
 * reconciles it from the KB (see openKbIndex).
 */
export function openSearchIndex(
  dbPath: string,
  opts: OpenSearchIndexOptions = {},
): SqliteSearchIndex {
  const logger = opts.logger ?? silentLogger;
  const { db, fresh } = openIndexDb(dbPath, logger, { deferQuickCheck: opts.deferQuickCheck });
  const memory = memoryOptions(opts.searchMemory);
  return new Index(db, fresh, { dbPath, logger, exists: opts.exists, memory });
}

const PROGRESS_EVERY = 250;

class Index implements SqliteSearchIndex {
  private cache: StatementCache;
  private vocab: Vocabulary;
  /** The trigram and word rankers' memories of this connection (search-memory.ts). */
  private memory: SearchMemory;
  private closed = false;
  private wasDamaged = false;
  /** Ids written by upsert()/remove() while a bulk pass runs (trackWrites). */
  private tracked: Set<string> | null = null;
  private bulk = false;
  /** Bulk builds write into one transaction held across batches (held-transaction.ts). */
  private readonly held = new HeldTransaction(() => this.db, BULK_COMMIT_ROWS);
  /** Where the bulk build's vocabulary fill goes on (fillVocabularyStep); null once done. */
  private vocabFrom: string | null = "";
  /** The previous process closed the file itself: no deferred quick_check (clean-close.ts). */
  private readonly closedCleanly: boolean;

  constructor(
    private db: Database.Database,
    private isFresh: boolean,
    private readonly opts: IndexOptions,
  ) {
    this.cache = new StatementCache(db);
    this.vocab = new Vocabulary(this.cache);
    this.memory = this.newMemory();
    this.closedCleanly = !isFresh && opts.dbPath !== ":memory:" && takeCleanClose(db);
  }

  get fresh(): boolean {
    return this.isFresh;
  }

  get damaged(): boolean {
    return this.wasDamaged;
  }

  async checkIntegrity(): Promise<"skipped" | "ok" | "damaged"> {
    if (this.opts.dbPath === ":memory:" || this.isFresh || this.closedCleanly) return "skipped";
    const check = await quickCheckInWorker(this.opts.dbPath);
    if (check.ok) return "ok";
    this.markDamaged(
      Object.assign(new Error(check.message), { code: check.code ?? "SQLITE_CORRUPT" }),
    );
    return "damaged";
  }

  recreate(reason: string): void {
    this.cache.clear();
    try {
      this.db.close();
    } catch {
      // The old handle is unusable anyway.
    }
    this.db = recreateIndexDb(this.opts.dbPath, reason, this.opts.logger);
    this.cache = new StatementCache(this.db);
    this.vocab = new Vocabulary(this.cache);
    this.memory.close();
    this.memory = this.newMemory();
    this.isFresh = true;
    this.wasDamaged = false;
    this.held.forget();
    this.bulk = false; // the new file has every index
  }

  /**
   * Runs a query; a damaged file marks the index for a rebuild and answers a clear error
   * instead of SQLite's (the refresh or reindex rebuilds it from the files).
   */
  private guard<T>(fn: () => T): T {
    try {
      return fn();
    } catch (err) {
      if (!isDamagedDbError(err)) throw err;
      this.markDamaged(err);
      throw new KbError(
        "internal",
        "the search index is damaged; it is being rebuilt from the files (or run the reindex tool), retry shortly",
      );
    }
  }

  private markDamaged(err: unknown): void {
    if (!this.wasDamaged) {
      this.opts.logger.warn(
        `search index ${this.opts.dbPath} is damaged (${err instanceof Error ? err.message : String(err)}); it will be rebuilt`,
      );
    }
    this.wasDamaged = true;
  }

  reconcile(docs: Iterable<ConceptDoc>): ReconcileStats {
    return this.transaction(() => {
      const stats: ReconcileStats = { added: 0, changed: 0, removed: 0, unchanged: 0 };
      const seen = new Set<string>();
      for (const doc of docs) {
        seen.add(doc.id);
        const change = storedChange(this.cache, doc);
        if (change === "same") {
          stats.unchanged++;
          continue;
        }
        this.write(doc, undefined);
        if (change === "changed") stats.changed++;
        else stats.added++;
      }
      for (const id of this.ids()) {
        if (!seen.has(id)) {
          this.remove(id);
          stats.removed++;
        }
      }
      return stats;
    });
  }

  upsert(doc: ConceptDoc, stat?: FileStat): void {
    this.tracked?.add(doc.id);
    this.keepUp(() => this.transaction(() => this.write(doc, stat)));
  }

  upsertMany(entries: ReadonlyArray<{ doc: ConceptDoc; stat: FileStat }>): void {
    const fresh = entries.filter(({ doc }) => !this.tracked?.has(doc.id));
    if (!this.bulk) {
      this.transaction(() => {
        for (const { doc, stat } of fresh) this.write(doc, stat);
      });
      return;
    }
    // Bulk: straight into the held transaction (a savepoint per call would flush FTS5's pending
    // terms to a segment per batch); a failure mid-batch drops the rows since the last commit.
    this.held.begin();
    try {
      for (const { doc, stat } of fresh) this.insertRow(doc, stat, true);
    } catch (err) {
      this.held.rollback();
      throw err;
    }
    this.held.rowsWritten(fresh.length);
  }

  shrinkMemory(): void {
    this.vocab.reset();
    this.db.pragma("shrink_memory");
  }

  bulkMode(on: boolean): void {
    if (on === this.bulk) return;
    if (!on) this.held.commit();
    // No fsync while a first build fills the file (A/B over 100,000 concepts: ~20% of the
    // build): the marker below makes a build the process did not finish start over at the next
    // open, and a file torn by a power loss fails the integrity check and is rebuilt.
    this.transaction(() => {
      setBulkFtsOptions(this.db, on);
      if (on) {
        dropIndexes(this.db);
        this.setMeta(BULK_BUILD_KEY, "running");
      } else {
        // The ASCII-only rows' tokens, skipped per row (insertRow): what fillVocabularyStep
        // has not added yet (all of it when the build stopped early).
        if (this.vocabFrom !== null) fillVocabulary(this.db, this.vocabFrom);
        createIndexes(this.db);
        this.cache.get("DELETE FROM meta WHERE key = ?").run(BULK_BUILD_KEY);
      }
    });
    // NORMAL and CACHE_KIB: as open-db.ts configures every connection.
    this.db.pragma(`synchronous = ${on ? "OFF" : "NORMAL"}`);
    this.db.pragma(`cache_size = -${on ? BULK_CACHE_KIB : CACHE_KIB}`);
    this.vocab.reset();
    this.cache.clear();
    this.bulk = on;
    this.vocabFrom = "";
  }

  fillVocabularyStep(): boolean {
    if (!this.bulk || this.vocabFrom === null) return true;
    this.held.begin(); // inside the build's transaction, no savepoint
    this.vocabFrom = fillVocabularyStep(this.db, this.vocabFrom);
    this.vocab.reset(); // its in-memory copy reloads with the terms just added
    return this.vocabFrom === null;
  }

  trackWrites(): ReadonlySet<string> {
    this.tracked = new Set();
    return this.tracked;
  }

  stopTracking(): void {
    this.tracked = null;
  }

  remove(id: string): void {
    this.tracked?.add(id);
    this.keepUp(() => this.transaction(() => this.removeRow(id)));
  }

  /** Index upkeep after a write: on a damaged file the write stands, the rebuild catches up. */
  private keepUp(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      if (!isDamagedDbError(err)) throw err;
      this.markDamaged(err);
    }
  }

  private removeRow(id: string): void {
    removeConceptRow(this.cache, id);
  }

  search(query: SearchQuery): SearchResult {
    const context = { exists: this.opts.exists, memory: this.memory };
    return this.guard(() => runSearch(this.cache, query, this.vocab, context));
  }

  warmSearch(): void {
    this.memory.warm();
  }

  searchMemory() {
    return this.memory.status();
  }

  list(query: ListQuery): ListResult {
    return this.guard(() => runList(this.cache, query, this.opts.exists));
  }

  /** Which of `ids` are indexed and visible under `visibility` (list-query.ts runVisibleIds). */
  visibleIds(ids: readonly string[], visibility: ListQuery["visibility"]): Set<string> {
    return this.guard(() => runVisibleIds(this.cache, ids, visibility));
  }

  count(): number {
    return this.guard(
      () => (this.cache.get("SELECT count(*) AS n FROM concepts").get() as { n: number }).n,
    );
  }

  indexedFiles(page?: { after: string; limit: number }): Map<string, IndexedFile> {
    return indexedFilesPage(this.cache, page);
  }

  indexedFilesOf(ids: readonly string[]): Map<string, IndexedFile> {
    return indexedFilesById(this.cache, ids);
  }

  touchStat(id: string, stat: FileStat): void {
    touchConceptStat(this.cache, id, stat);
  }

  replaceAll(
    entries: Array<{ doc: ConceptDoc; stat?: FileStat }>,
    onProgress?: (done: number, total: number) => void,
  ): void {
    this.transaction(() => {
      this.cache.clear();
      this.vocab.reset();
      dropSchema(this.db);
      createSchema(this.db, { indexes: false });
      onProgress?.(0, entries.length);
      entries.forEach(({ doc, stat }, i) => {
        this.insertRow(doc, stat, true);
        if ((i + 1) % PROGRESS_EVERY === 0 || i + 1 === entries.length)
          onProgress?.(i + 1, entries.length);
      });
      fillVocabulary(this.db);
      createIndexes(this.db);
      this.cache.clear();
      this.vocab.reset();
    });
  }

  getMeta(key: string): string | null {
    return readMeta(this.cache, key);
  }

  setMeta(key: string, value: string): void {
    writeMeta(this.cache, key, value);
  }

  transaction<T>(fn: () => T): T {
    try {
      return this.db.transaction(fn)();
    } catch (err) {
      // Rolled back: the vocabulary's in-memory copy may name terms the table no longer has.
      this.vocab.reset();
      throw err;
    }
  }

  database(): Database.Database {
    return this.db;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.memory.close();
    this.cache.clear();
    if (!this.wasDamaged && this.opts.dbPath !== ":memory:") markCleanClose(this.db);
    this.db.close();
  }

  private newMemory(): SearchMemory {
    const { dbPath, logger, memory } = this.opts;
    return new SearchMemory(this.db, this.cache, { ...memory, dbPath, logger });
  }

  private ids(): string[] {
    return this.cache.get("SELECT id FROM concepts").pluck().all() as string[];
  }

  /** Delete + insert into every table (call inside a transaction). */
  private write(doc: ConceptDoc, stat: FileStat | undefined): void {
    this.removeRow(doc.id);
    this.insertRow(doc, stat);
  }

  /** `asciiVocabLater`: a bulk insert, whose ASCII-only tokens fillVocabulary adds at the end. */
  private insertRow(doc: ConceptDoc, stat: FileStat | undefined, asciiVocabLater = false): void {
    insertConceptRow(this.cache, this.vocab, doc, stat, asciiVocabLater, takePreparedRow(doc));
  }
}
