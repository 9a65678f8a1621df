/**
 * The index of one KB store: `<root>/.cartographer/index.db`, reconciled against the files on
 * open (the files git names as changed since the last pass, or all of them: reconcile-scope.ts;
 * stat first, content hash for files whose stat changed) and rebuilt on demand.
 */
import fs from "node:fs";
import path from "node:path";
import type { ConceptFileStat, KbStore } from "../kb/core/api.js";
import type { ConceptDoc, MapDescriptor } from "../kb/core/types.js";
import { type Logger, silentLogger } from "../logger.js";
import type { ReconcileStats } from "./api.js";
import { type DocReader, inProcessReader } from "./build-reader.js";
import { isDamagedDbError } from "./open-db.js";
import { passScope, recordSnapshot } from "./reconcile-scope.js";
import type { FileStat } from "./rows.js";
import type { PathExists } from "./search-query.js";
import { type IndexedFile, openSearchIndex, type SqliteSearchIndex } from "./sqlite-index.js";

export interface KbIndexOptions {
  logger?: Logger;
  /** Above this many files to read, one listConcepts() pass replaces per-id reads (default 200). */
  bulkReadThreshold?: number;
}

export interface OpenedKbIndex {
  index: SqliteSearchIndex;
  stats: ReconcileStats;
  /** True when the index was built from scratch (missing, corrupt or outdated file). */
  rebuilt: boolean;
}

/** KB-root-relative location of the index file. */
export const INDEX_DB_PATH = ".cartographer/index.db";
/** Meta key holding the map/journal layout the placement columns were computed with. */
export const LAYOUT_KEY = "layout";
/** Files modified this close to (or after) the moment their stat was recorded are re-read. */
const RACY_MS = 2_000;
const READ_BATCH = 64;
/** Above this many files to read, read the whole KB in one listConcepts() pass. */
const BULK_READ_THRESHOLD = 200;

export function kbIndexPath(store: KbStore): string {
  return path.join(store.root, INDEX_DB_PATH);
}

/**
 * Opens the KB's index and brings it up to date: files whose path, mtime and size match the
 * stored ones are skipped; others are read and compared by content hash; vanished ids are
 * removed. A changed map/journal layout re-checks every concept (placement may have moved).
 */
export async function openKbIndex(
  store: KbStore,
  opts: KbIndexOptions = {},
): Promise<OpenedKbIndex> {
  const logger = opts.logger ?? silentLogger;
  const index = openSearchIndex(kbIndexPath(store), {
    logger,
    exists: fileExistsUnder(store.root),
  });
  try {
    const threshold = opts.bulkReadThreshold ?? BULK_READ_THRESHOLD;
    const stats = await recovering(index, () => reconcileFromStore(store, index, threshold));
    return { index, stats, rebuilt: index.fresh };
  } catch (err) {
    index.close();
    throw err;
  }
}

/**
 * Opens the KB's index file WITHOUT reconciling it: the server answers at once and builds the
 * index in the background (buildKbIndex, scheduled by src/mcp/index-build.ts). A missing,
 * damaged or outdated file opens as a fresh empty index (open-db.ts).
 */
export function openKbIndexFile(store: KbStore, opts: Pick<KbIndexOptions, "logger"> = {}) {
  return openSearchIndex(kbIndexPath(store), {
    logger: opts.logger ?? silentLogger,
    exists: fileExistsUnder(store.root),
    deferQuickCheck: true, // the server's build runs checkIntegrity() on a worker thread
  });
}

/**
 * The background build of an open index: the reconcile pass of openKbIndex (a full build on an
 * empty index), in batches that let other calls run, reporting progress, stopped by `signal`.
 */
export function buildKbIndex(
  store: KbStore,
  index: SqliteSearchIndex,
  control: PassControl & Pick<KbIndexOptions, "bulkReadThreshold"> = {},
): Promise<ReconcileStats> {
  const threshold = control.bulkReadThreshold ?? BULK_READ_THRESHOLD;
  return recovering(index, () => reconcileFromStore(store, index, threshold, control));
}

/**
 * Brings an already open index up to date with the files: the same stat-then-hash pass as on
 * open (only files whose stat changed are read). The background refresh of a mounted KB runs
 * this under the KB's write lock, so a tool write's own index update never interleaves.
 */
export function refreshKbIndex(
  store: KbStore,
  index: SqliteSearchIndex,
  opts: Pick<KbIndexOptions, "bulkReadThreshold"> & Pick<PassControl, "onIndexed"> = {},
): Promise<ReconcileStats> {
  const threshold = opts.bulkReadThreshold ?? BULK_READ_THRESHOLD;
  const control: PassControl = opts.onIndexed ? { onIndexed: opts.onIndexed } : {};
  return recovering(index, () => reconcileFromStore(store, index, threshold, control));
}

/**
 * Runs a pass that writes the whole index; when the file turns out damaged (before: a query
 * marked it; during: SQLite says so) it is moved aside and the pass runs again on a fresh file.
 */
export async function recovering<T>(index: SqliteSearchIndex, pass: () => Promise<T>): Promise<T> {
  if (index.damaged) index.recreate("found damaged by an earlier query");
  try {
    return await pass();
  } catch (err) {
    if (!isDamagedDbError(err)) throw err;
    index.recreate(err instanceof Error ? err.message : String(err));
    return pass();
  }
}

/** What a reconcile pass reports and obeys while it runs (the background build). */
export interface PassControl {
  /** Called with `done` of `total` concept files after each batch (done counts unchanged ones). */
  onProgress?: (done: number, total: number) => void;
  /** Checked between batches: an aborted pass throws (closing a mount mid-build). */
  signal?: AbortSignal;
  /** Warnings about unreadable frontmatter while reading files. */
  logger?: Logger;
  /**
   * Walk every file even when git could name the changed ones (reconcile-scope.ts): the
   * reindex tool's promise covers edits git does not see.
   */
  full?: boolean;
  /**
   * Reads the files of a bulk pass of at least READ_WORKER_MIN_FILES files: a worker pool
   * (build-reader.ts) reads the next batch while this thread writes the current one. Default
   * (and for smaller passes): in process.
   */
  reader?: DocReader;
  /**
   * Told the documents each batch added or changed, once they are in the index (the background
   * refresh: the console renders a large concept edited outside the tools ahead of its view).
   */
  onIndexed?: (docs: readonly ConceptDoc[]) => void;
}

/** Concepts written per transaction in a reconcile pass; the event loop runs between batches. */
const WRITE_BATCH = 500;
/**
 * Fewest files a pass gives control.reader: starting its worker takes ~60 ms (dist, quiet) and
 * each batch read ahead saves ~25 ms of the main thread, so fewer than three batches read
 * faster in process.
 */
const READ_WORKER_MIN_FILES = 3 * WRITE_BATCH;

/**
 * The stat-then-hash pass, in batches: each batch is one transaction (no savepoint per row, see
 * upsertMany) and the event loop runs between batches, so a build never holds up the calls of
 * this or another KB for longer than one batch. A tool that writes a concept while the pass runs
 * wins: the pass skips the ids written since it started (trackWrites), whose copy it read earlier.
 */
async function reconcileFromStore(
  store: KbStore,
  index: SqliteSearchIndex,
  bulkReadThreshold: number,
  control: PassControl = {},
): Promise<ReconcileStats> {
  const tracked = index.trackWrites();
  try {
    return await reconcilePass(store, index, bulkReadThreshold, control, tracked);
  } finally {
    index.stopTracking();
  }
}

async function reconcilePass(
  store: KbStore,
  index: SqliteSearchIndex,
  bulkReadThreshold: number,
  control: PassControl,
  tracked: ReadonlySet<string>,
): Promise<ReconcileStats> {
  // One read of the maps per pass (the background refresh tests count passes by it).
  const maps = await store.maps();
  const layout = layoutSignature(maps);
  const layoutChanged = index.getMeta(LAYOUT_KEY) !== layout;
  const scope = await passScope(store, maps, index, layoutChanged || control.full === true, () =>
    indexedFilesInSteps(index),
  );
  const { files, known } = scope;
  const stats: ReconcileStats = { added: 0, changed: 0, removed: 0, unchanged: scope.untouched };
  const toRead: typeof files = [];
  for (const file of files) {
    const prev = known.get(file.id);
    const statClean =
      prev !== undefined &&
      prev.path === file.path &&
      prev.mtimeMs === file.mtimeMs &&
      prev.size === file.size &&
      prev.statAtMs !== null &&
      file.mtimeMs < prev.statAtMs - RACY_MS;
    if (statClean && !layoutChanged) stats.unchanged++;
    else toRead.push(file);
  }
  const total = files.length + scope.untouched;
  let done = stats.unchanged;
  control.onProgress?.(done, total);
  const present = new Set(files.map((f) => f.id));
  // A first build fills an empty index in bulk mode: secondary indexes built once at the end,
  // rows written into a transaction held across batches (no transaction or savepoint per batch).
  const firstBuild = known.size === 0 && scope.untouched === 0 && toRead.length > bulkReadThreshold;
  const inTransaction = (fn: () => void) => (firstBuild ? fn() : index.transaction(fn));
  const writeBatch = (
    batch: ConceptFileStat[],
    docOf: (f: ConceptFileStat) => ConceptDoc | null,
  ) => {
    const upserts: Array<{ doc: ConceptDoc; stat: FileStat }> = [];
    inTransaction(() => {
      for (const file of batch) {
        const doc = docOf(file);
        if (!doc) {
          present.delete(file.id); // vanished between scan and read
          continue;
        }
        if (tracked.has(file.id)) continue; // a tool wrote it since: its copy is newer
        const stat: FileStat = { mtimeMs: file.mtimeMs, size: file.size };
        const prev = known.get(file.id);
        if (prev && unchanged(prev, doc) && !layoutChanged) {
          index.touchStat(file.id, stat);
          stats.unchanged++;
        } else {
          upserts.push({ doc, stat });
          if (prev) stats.changed++;
          else stats.added++;
        }
      }
      index.upsertMany(upserts);
    });
    if (upserts.length > 0) control.onIndexed?.(upserts.map((u) => u.doc));
    done += batch.length;
    control.onProgress?.(done, total);
  };
  if (toRead.length > bulkReadThreshold) {
    // Many files to read (first build, layout change): reading the scanned paths directly is
    // far cheaper than resolving ids one by one; one batch at a time, so memory holds one
    // batch of documents, not the whole KB (100,000 concepts: ~0.75 GB when read at once).
    // The next batch is read (by control.reader's worker) while this one is written: one batch
    // ahead at most, so memory holds two batches.
    const reader =
      control.reader && toRead.length >= READ_WORKER_MIN_FILES ? control.reader : inProcessReader;
    const readBatch = (at: number) =>
      readDocs(store.root, maps, toRead.slice(at, at + WRITE_BATCH), control.logger, reader);
    let ahead: Promise<Map<string, ConceptDoc>> | undefined = readBatch(0);
    if (firstBuild) index.bulkMode(true);
    try {
      for (let i = 0; i < toRead.length; i += WRITE_BATCH) {
        await betweenBatches(control.signal);
        const batch = toRead.slice(i, i + WRITE_BATCH);
        const docs = await (ahead as Promise<Map<string, ConceptDoc>>);
        ahead = i + WRITE_BATCH < toRead.length ? readBatch(i + WRITE_BATCH) : undefined;
        writeBatch(batch, (f) => docs.get(f.id) ?? null);
      }
      // The vocabulary the bulk rows deferred, in steps (one statement held the loop ~2 s).
      while (!index.fillVocabularyStep()) await betweenBatches(control.signal);
    } finally {
      ahead?.catch(() => {}); // a pass stopped early: the read ahead is not wanted
      if (firstBuild) index.bulkMode(false);
    }
  } else {
    for (let i = 0; i < toRead.length; i += READ_BATCH) {
      await betweenBatches(control.signal);
      const batch = toRead.slice(i, i + READ_BATCH);
      const docs = await readDocs(store.root, maps, batch, control.logger);
      writeBatch(batch, (f) => docs.get(f.id) ?? null);
    }
  }
  await betweenBatches(control.signal);
  index.transaction(() => {
    for (const id of known.keys()) {
      // A concept a tool (re)created since the scan is not the vanished one.
      if (!present.has(id) && !tracked.has(id)) {
        index.remove(id);
        stats.removed++;
      }
    }
    index.setMeta(LAYOUT_KEY, layout);
    recordSnapshot(
      index,
      scope.snapshot,
      toRead.map((f) => f.path),
    );
  });
  return stats;
}

/** The documents of scanned concept files, by id (a file gone since the scan is absent). */
export async function readDocs(
  root: string,
  maps: readonly MapDescriptor[],
  files: readonly ConceptFileStat[],
  logger: Logger | undefined,
  reader: DocReader = inProcessReader,
): Promise<Map<string, ConceptDoc>> {
  // A very large file comes back as its head with the whole file's hash (index-read.ts).
  const read = await reader.read(root, maps, files, logger);
  const docs = new Map<string, ConceptDoc>();
  files.forEach((f, i) => {
    const doc = read[i];
    if (doc) docs.set(f.id, doc);
  });
  return docs;
}

/** Rows of the stored file bookkeeping read per step of indexedFilesInSteps. */
const KNOWN_PAGE = 1_000;

/**
 * The index's file bookkeeping, read KNOWN_PAGE ids at a time with the event loop free between
 * steps: in one query, 10,000 rows held the loop 60–160 ms (at load 12) on every refresh pass,
 * which `/health` and every call waited out. Rows a tool changes meanwhile are in the pass's
 * tracked set, which wins over this copy.
 */
export function indexedFilesInSteps(index: SqliteSearchIndex): Promise<Map<string, IndexedFile>>;
/** The same, keeping only `pick(row)` per id (a full rebuild's counts need the hash alone). */
export function indexedFilesInSteps<T>(
  index: SqliteSearchIndex,
  pick: (file: IndexedFile) => T,
): Promise<Map<string, T>>;
export async function indexedFilesInSteps<T>(
  index: SqliteSearchIndex,
  pick: (file: IndexedFile) => T = (file) => file as T,
): Promise<Map<string, T>> {
  const all = new Map<string, T>();
  for (let after = ""; ; ) {
    const page = index.indexedFiles({ after, limit: KNOWN_PAGE });
    for (const [id, file] of page) {
      all.set(id, pick(file));
      after = id;
    }
    if (page.size < KNOWN_PAGE) return all;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

/** Lets other calls run (a macrotask turn), then stops the pass if it was aborted. */
async function betweenBatches(signal: AbortSignal | undefined): Promise<void> {
  await new Promise<void>((resolve) => setImmediate(resolve));
  signal?.throwIfAborted();
}

/**
 * One stat per answered hit: search and concept_list drop ids whose file is gone, so a concept
 * moved or deleted since it was indexed never shows (under its old id, or under both).
 */
function fileExistsUnder(root: string): PathExists {
  return (rel) => {
    try {
      return fs.statSync(path.join(root, rel), { throwIfNoEntry: false })?.isFile() ?? false;
    } catch {
      return false;
    }
  };
}

function unchanged(prev: IndexedFile, doc: ConceptDoc): boolean {
  return (
    prev.hash === doc.hash &&
    prev.path === doc.path &&
    prev.frontmatter === JSON.stringify(doc.frontmatter)
  );
}

export function layoutSignature(maps: readonly MapDescriptor[]): string {
  return JSON.stringify(maps.map((m) => [m.name, m.kind]));
}
