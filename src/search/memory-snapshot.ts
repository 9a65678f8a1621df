/**
 * The search memories of one snapshot and what this connection changed since (search-memory.ts
 * decides when to build; this holds what a build made). A snapshot stands for the data while
 * `PRAGMA data_version` (commits by any other connection) is what it was when its build began
 * and this connection's change log (change-log.ts) is intact; the concepts logged since are read
 * anew beside it (memory-view.ts), up to MAX_CHANGED. Budget bytes are returned on drop.
 */
import type Database from "better-sqlite3";
import { ChangeLog } from "./change-log.js";
import { release } from "./memory-build.js";
import { layeredView, MAX_CHANGED, type MemoryView, snapshotView } from "./memory-view.js";
import type { TrigramMemory } from "./ranking/trigram-memory.js";
import type { WordMemory } from "./ranking/word-memory.js";
import { openSeparatorProbe, type SeparatorProbe } from "./separator-probe.js";
import type { StatementCache } from "./statement-cache.js";
import type { WordBuildOptions } from "./word-build.js";

/** Where a snapshot was read: the data version and the change log's head. */
export interface SnapshotPoint {
  version: number;
  seq: number;
}

export class MemorySnapshot {
  private trigrams: { memory: TrigramMemory; at: SnapshotPoint } | null = null;
  private words: WordMemory | null = null;
  /** The view with changed concepts read anew, for one change-log head. */
  private layer: { head: number; view: MemoryView } | null = null;
  private readonly log: ChangeLog;
  private probe: SeparatorProbe | undefined;

  constructor(
    db: Database.Database,
    private readonly cache: StatementCache,
    private readonly opts: { maxTextBytes: number; words: WordBuildOptions | null },
  ) {
    this.log = new ChangeLog(db, cache);
  }

  /** Whether a trigram memory is held (standing for the data or not). */
  get held(): boolean {
    return this.trigrams !== null;
  }

  get trigramBytes(): number {
    return this.trigrams?.memory.bytes ?? 0;
  }

  /** The word memory's bytes, or null when none is held. */
  get wordBytes(): number | null {
    return this.words?.bytes ?? null;
  }

  /** The view while the snapshot stands for the data (call outside a transaction), else null. */
  view(): MemoryView | null {
    const snap = this.trigrams;
    if (!snap || snap.at.version !== this.dataVersion() || !this.log.intact()) return null;
    const head = this.log.head();
    if (head === snap.at.seq) return snapshotView(snap.memory, this.words);
    if (this.layer?.head === head) return this.layer.view;
    const changed = this.log.since(snap.at.seq, MAX_CHANGED);
    const view =
      changed &&
      layeredView(this.cache, { trigrams: snap.memory, words: this.words }, changed, {
        ...this.opts,
        isSeparator: (cp) => this.separators().isSeparator(cp),
      });
    if (!view) return null;
    this.layer = { head, view };
    return view;
  }

  /** Where a build starting now reads from (the log is kept from here on). */
  begin(): SnapshotPoint {
    this.log.ensure();
    return { version: this.dataVersion(), seq: this.log.head() };
  }

  /** No other connection committed since `at`, and this one's change log is whole. */
  standsFor(at: SnapshotPoint): boolean {
    return this.dataVersion() === at.version && this.log.intact();
  }

  /** Holds a new snapshot's trigram memory (its bytes already reserved); the words follow. */
  install(memory: TrigramMemory, at: SnapshotPoint): void {
    this.drop(false);
    this.trigrams = { memory, at };
    this.log.prune(at.seq);
  }

  /** Holds the word memory of the snapshot installed last (its bytes already reserved). */
  installWords(memory: WordMemory): void {
    this.words = memory;
    this.layer = null; // cached without the word memory
  }

  /**
   * Lets the memories go and returns their bytes to the process budget; `forgetLog` when no
   * build is reading (one under way reads what was logged from its own start on).
   */
  drop(forgetLog: boolean): void {
    if (this.trigrams) release(this.trigrams.memory.bytes);
    if (this.words) release(this.words.bytes);
    this.trigrams = null;
    this.words = null;
    this.layer = null;
    if (forgetLog) this.log.prune(Number.MAX_SAFE_INTEGER);
  }

  close(): void {
    this.drop(false);
    this.probe?.close();
    this.probe = undefined;
  }

  /** SQLite's word separators, asked on this thread for changed concepts (separator-probe.ts). */
  private separators(): SeparatorProbe {
    this.probe ??= openSeparatorProbe();
    return this.probe;
  }

  private dataVersion(): number {
    return this.cache.get("PRAGMA data_version").pluck().get() as number;
  }
}
