/**
 * The search memories of one index connection: the trigram memory (ranking/trigram-memory.ts)
 * and the word memory (ranking/word-memory.ts), built on a worker thread, used only while they
 * match the data exactly, rebuilt after writes settle (docs/decisions.md "The trigram ranker in
 * memory", "The word ranker in memory").
 *
 * A snapshot serves while `PRAGMA data_version` (commits by any other connection) is what it
 * was when the build began and this connection's change log (change-log.ts) is intact. The
 * concepts this connection changed since are read anew beside it (memory-view.ts), up to
 * MAX_CHANGED; past that, or on another connection's commit, searches rank in FTS5 (the same
 * answers more slowly) until a rebuild. A build starts QUIET_MS after a search found the memory
 * stale (or its changed concepts past REBUILD_AFTER), at most once per MIN_GAP_MS, so a stream of
 * writes costs at most one build per gap; the gap is at least ten times the last build's length,
 * so rebuilding keeps to a tenth of a core however large the KB.
 */

import type { Worker } from "node:worker_threads";
import type Database from "better-sqlite3";
import {
  type BuiltArrays,
  heldBytes,
  PROCESS_BUDGET_BYTES,
  readMemoryArrays,
  reserve,
  takeTurn,
} from "./memory-build.js";
import { MemorySnapshot, type SnapshotPoint } from "./memory-snapshot.js";
import type { MemoryView } from "./memory-view.js";
import { readTotals, type TableTotals, type VisibleRows } from "./ranking/bm25-memory.js";
import type { Scored } from "./ranking/ranker-query.js";
import { TrigramMemory } from "./ranking/trigram-memory.js";
import { rankInMemory, type TrigramQuery } from "./ranking/trigram-rank.js";
import type { WordArrays } from "./ranking/word-arrays.js";
import { rankWords, WordMemory, type WordQuery } from "./ranking/word-memory.js";
import {
  GAP_FACTOR,
  MIN_GAP_MS,
  QUIET_MS,
  type SearchMemoryOptions,
  type SearchMemoryStatus,
} from "./search-memory-options.js";
import type { StatementCache } from "./statement-cache.js";

/** Changed concepts beside a snapshot past which a rebuild is scheduled (to fold them in). */
const REBUILD_AFTER = 64;

export class SearchMemory {
  private readonly snapshot: MemorySnapshot;
  /** The stamp at which a build declined the word memory (non-ASCII text, over its bound). */
  private wordsDeclined: string | null = null;
  private lastBuildMs = 0;
  /** The data a build found unusable (non-ASCII, too large, too few rows): not retried until it changes. */
  private declined: string | null = null;
  private building = false;
  private lastBuildStart = Number.NEGATIVE_INFINITY;
  private timer: NodeJS.Timeout | undefined;
  private worker: Worker | undefined;
  private closed = false;
  private lnUsable = true;
  private served = 0;
  /** The memories whose first build was logged. */
  private readonly announced = new Set<"trigram" | "word">();
  /** The build under way found the data changing: schedule another when it ends. */
  private again = false;
  private readonly quietMs: number;
  private readonly minGapMs: number;
  private readonly budgetBytes: number;

  constructor(
    private readonly db: Database.Database,
    private readonly cache: StatementCache,
    private readonly opts: SearchMemoryOptions,
  ) {
    this.quietMs = opts.quietMs ?? QUIET_MS;
    this.minGapMs = opts.minGapMs ?? MIN_GAP_MS;
    this.budgetBytes = opts.budgetBytes ?? PROCESS_BUDGET_BYTES;
    this.snapshot = new MemorySnapshot(db, cache, {
      maxTextBytes: opts.maxTextBytes,
      words: opts.words ?? null,
    });
  }

  /** The view to answer from now, else null (and a build is scheduled). */
  private current(): MemoryView | null {
    const view = this.usable();
    if (view || this.closed || !this.lnUsable || this.cache.inTransaction) return view;
    this.drop();
    // A KB under minRows never gets a memory: no build is scheduled for it on every search.
    if ((this.totals()?.rows ?? 0) >= this.opts.minRows) this.schedule(this.stamp(), this.quietMs);
    return null;
  }

  /** The view while the snapshot stands for the data, with what changed since beside it. */
  private usable(): MemoryView | null {
    if (this.closed || !this.lnUsable || this.cache.inTransaction) return null;
    const view = this.snapshot.view();
    if (view && view.changed > REBUILD_AFTER) this.schedule(this.stamp(), this.quietMs);
    return view;
  }

  /**
   * The trigram ranker's first `n` rows from memory, with FTS5's scores; null when the memory is
   * not usable for this query (stale, absent, a term not all ASCII): the caller asks FTS5.
   */
  rank(query: TrigramQuery, n: number, visible?: VisibleRows): Scored[] | null {
    const view = this.current();
    const totals = view ? this.totals() : null;
    if (!view || !totals || totals.rows === 0) return null;
    const ranked = rankInMemory(view.trigrams, query, totals, (x) => this.ln(x), n, visible);
    if (ranked) this.served++;
    return ranked;
  }

  /**
   * The word ranker's first `n` rows from memory, with FTS5's scores; null when the word memory
   * is not usable for this query (stale, absent, a phrase it does not answer): the caller asks FTS5.
   */
  rankWords(query: WordQuery, n: number, visible?: VisibleRows): Scored[] | null {
    const words = this.freshWords();
    const block =
      words && this.cache.get("SELECT block FROM concepts_fts_data WHERE id = 1").pluck().get();
    if (!words || !(block instanceof Uint8Array)) return null;
    const totals = readTotals(block, 4);
    if (totals.rows === 0) return null;
    const ranked = rankWords(words, query, totals, (x) => this.ln(x), n, visible);
    if (ranked) this.served++;
    return ranked;
  }

  /** The word memory's row count of each phrase, or null (no fresh memory, a phrase it cannot count). */
  wordCounts(phrases: WordQuery["phrases"]): number[] | null {
    return this.current()?.counts?.(phrases) ?? null;
  }

  /**
   * Which plain terms match one token exactly (prefix-terms.ts), decided from the word memory
   * while it is the index's tokens; null without a fresh memory (the caller asks FTS5).
   */
  exactTerms(terms: readonly string[]): Map<string, string> | null {
    const words = this.freshWords();
    if (!words) return null;
    const exact = new Map<string, string>();
    for (const term of terms) {
      const token = words.exactToken(term);
      if (token !== undefined) exact.set(term, token);
    }
    return exact;
  }

  /** The word memory as the data stands now, when there is one. */
  private freshWords(): MemoryView["words"] {
    return this.current()?.words ?? null;
  }

  /** Starts a build now when none is under way (the index just became ready). */
  warm(): void {
    if (this.closed || this.cache.inTransaction) return;
    if (this.usable() === null) this.schedule(this.stamp(), 0);
  }

  /** The table's N and token total, as bm25 reads them. */
  totals(): TableTotals | null {
    const block = this.cache.get("SELECT block FROM concepts_tri_data WHERE id = 1").pluck().get();
    return block instanceof Uint8Array ? readTotals(block, 3) : null;
  }

  /** SQLite's ln(), the log bm25 itself calls. */
  ln(x: number): number {
    return this.cache.get("SELECT ln(?)").pluck().get(x) as number;
  }

  status(): SearchMemoryStatus {
    const served = this.served;
    const words = this.wordStatus();
    if (this.building) return { state: "building", bytes: 0, served, words, changed: 0 };
    if (!this.snapshot.held) {
      if (this.timer !== undefined) return { state: "stale", bytes: 0, served, words, changed: 0 };
      const declined = this.declined !== null && this.declined === this.stamp();
      return { state: declined ? "declined" : "off", bytes: 0, served, words, changed: 0 };
    }
    const view = this.usable();
    const bytes = this.snapshot.trigramBytes;
    return { state: view ? "ready" : "stale", bytes, served, words, changed: view?.changed ?? 0 };
  }

  private wordStatus(): SearchMemoryStatus["words"] {
    const bytes = this.snapshot.wordBytes;
    if (bytes !== null) return { state: "ready", bytes };
    const declined = this.wordsDeclined !== null && this.wordsDeclined === this.stamp();
    return { state: declined ? "declined" : "off", bytes: 0 };
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    void this.worker?.terminate();
    this.worker = undefined;
    this.snapshot.close();
  }

  /** Lets the memories go (stale) and returns their bytes to the process budget. */
  private drop(): void {
    this.snapshot.drop(!this.building && !this.cache.inTransaction);
  }

  private stamp(): string {
    const changes = this.cache.get("SELECT total_changes()").pluck().get();
    const version = this.cache.get("PRAGMA data_version").pluck().get();
    return `${changes}:${version}`;
  }

  private schedule(stamp: string, delay: number): void {
    if (this.building || this.timer !== undefined || stamp === this.declined) return;
    const gap = Math.max(this.minGapMs, this.lastBuildMs * (this.opts.gapFactor ?? GAP_FACTOR));
    const wait = Math.max(delay, this.lastBuildStart + gap - Date.now());
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.build();
    }, wait);
    this.timer.unref();
  }

  /** One build at a time in this process, whatever the number of KBs (taking a turn). */
  private async build(): Promise<void> {
    if (this.closed || this.building) return;
    this.building = true;
    this.again = false;
    try {
      await takeTurn(() => this.buildNow());
    } finally {
      this.building = false;
    }
    if (this.again && !this.closed && !this.cache.inTransaction)
      this.schedule(this.stamp(), this.quietMs);
  }

  private async buildNow(): Promise<void> {
    if (this.closed) return;
    if (this.cache.inTransaction) return this.reschedule();
    const stamp = this.stamp();
    const totals = this.totals();
    if (!totals || totals.rows < this.opts.minRows || !this.lnWorks()) {
      this.declined = stamp;
      return;
    }
    // The log from here on: what this connection changes while the worker reads is read anew.
    const at = this.snapshot.begin();
    this.lastBuildStart = Date.now();
    try {
      const built = this.read();
      const arrays = await built.trigrams;
      if (this.closed) return;
      if (!this.standsFor(at)) return this.reschedule();
      this.install(arrays && new TrigramMemory(arrays), at, stamp);
      const words = await built.words;
      if (this.closed) return;
      if (!this.standsFor(at)) return this.reschedule();
      this.installWords(words, stamp);
    } catch (err) {
      this.opts.logger?.warn(
        `search: the search memory could not be built (${(err as Error).message}); searches rank in FTS5`,
      );
      if (!this.snapshot.held) this.declined = stamp;
      this.wordsDeclined = stamp;
    } finally {
      this.lastBuildMs = Date.now() - this.lastBuildStart;
    }
  }

  /** Outside a transaction, with nothing since `at` but this connection's logged changes. */
  private standsFor(at: SnapshotPoint): boolean {
    return !this.cache.inTransaction && this.snapshot.standsFor(at);
  }

  private installWords(arrays: WordArrays | null, stamp: string): void {
    const memory = arrays && new WordMemory(arrays);
    if (!this.snapshot.held || memory === null || !reserve(memory.bytes, this.budgetBytes)) {
      if (memory) this.overBudget(memory.bytes, "word");
      this.wordsDeclined = stamp;
      return;
    }
    this.snapshot.installWords(memory);
    this.announce("word", memory);
  }

  /** The data changed while the build read it: another build once writes settle. */
  private reschedule(): void {
    this.again = true; // scheduled by build() once this one has ended
  }

  private install(memory: TrigramMemory | null, at: SnapshotPoint, stamp: string): void {
    this.snapshot.drop(false); // a snapshot still held (its bytes back to the budget first)
    if (memory === null || !reserve(memory.bytes, this.budgetBytes)) {
      if (memory) this.overBudget(memory.bytes, "trigram");
      this.declined = stamp;
      return;
    }
    this.snapshot.install(memory, at);
    this.announce("trigram", memory);
  }

  /** Each memory's first build is logged; rebuilds after writes are not. */
  private announce(kind: "trigram" | "word", memory: { rowCount: number; bytes: number }): void {
    if (this.announced.has(kind)) return;
    this.announced.add(kind);
    this.opts.logger?.info(
      `search: ${kind} memory ready (${memory.rowCount} concepts, ${Math.round(memory.bytes / 2 ** 20)} MiB, built in ${Date.now() - this.lastBuildStart} ms)`,
    );
  }

  private overBudget(bytes: number, kind: "trigram" | "word"): void {
    const mib = (n: number) => `${Math.round(n / 2 ** 20)} MiB`;
    this.opts.logger?.info(
      `search: no ${kind} memory for this KB (${mib(bytes)} would pass the server's ${mib(this.budgetBytes)} for all KBs, ${mib(heldBytes())} held); its searches rank in FTS5`,
    );
  }

  /** The arrays, read on a worker (a file) or here (`:memory:`, tests' small indexes). */
  private read(): BuiltArrays {
    const { dbPath, maxTextBytes } = this.opts;
    const words = this.opts.words ?? null;
    return readMemoryArrays(this.db, { dbPath, maxTextBytes, words }, (worker) => {
      this.worker = worker;
    });
  }

  private lnWorks(): boolean {
    try {
      this.lnUsable = Number.isFinite(this.ln(2));
    } catch {
      this.lnUsable = false; // SQLite built without its math functions
    }
    return this.lnUsable;
  }
}
