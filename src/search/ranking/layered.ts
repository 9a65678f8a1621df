/**
 * A search memory as the data stands now: the memory built from a snapshot, less the concepts
 * changed since, plus those concepts read anew into a small memory of their own (docs/decisions.md
 * "The search memories serve through writes"). Row numbers of the small memory follow the
 * snapshot's, so every phrase's rows stay ascending and bm25 scores them as one table: a
 * phrase's row count (n_i) and each row's size are those of the data now, and N and the token
 * total come from FTS5's own averages record, which every write keeps current. Pure.
 */
import type { MemoryRows, PhraseHits } from "./bm25-memory.js";
import type { TrigramMemory } from "./trigram-memory.js";
import type { TrigramSource } from "./trigram-rank.js";
import { exactTokenOf, type WordMemory, type WordSource } from "./word-memory.js";

/** A memory whose rows can be found by rowid (they are held in rowid order). */
interface RowsByRowid extends MemoryRows {
  readonly rowCount: number;
  rowOf(rowid: number): number;
}

/** Rows of the snapshot's memory, then the changed concepts' (numbered from `base.rowCount`). */
class LayeredRows implements MemoryRows {
  /** The snapshot's rows of the changed concepts, ascending: left out of every phrase's hits. */
  protected readonly stale: Int32Array;

  constructor(
    protected readonly base: RowsByRowid,
    protected readonly fresh: MemoryRows,
    changed: ReadonlySet<number>,
  ) {
    const rows = [...changed].map((rowid) => base.rowOf(rowid)).filter((row) => row >= 0);
    this.stale = Int32Array.from(rows).sort();
  }

  rowid(row: number): number {
    const offset = this.base.rowCount;
    return row < offset ? this.base.rowid(row) : this.fresh.rowid(row - offset);
  }

  size(row: number): number {
    const offset = this.base.rowCount;
    return row < offset ? this.base.size(row) : this.fresh.size(row - offset);
  }
}

/**
 * The snapshot's hits without its `stale` rows (both ascending: one merge pass), then the fresh
 * memory's hits, renumbered after the snapshot's rows.
 */
function layeredHits(
  base: PhraseHits,
  stale: Int32Array,
  fresh: PhraseHits,
  offset: number,
): PhraseHits {
  const rows = new Int32Array(base.rows.length + fresh.rows.length);
  const freq = new Float64Array(rows.length);
  let n = 0;
  let s = 0;
  for (let i = 0; i < base.rows.length; i++) {
    const row = base.rows[i] as number;
    while (s < stale.length && (stale[s] as number) < row) s++;
    if (stale[s] === row) continue;
    rows[n] = row;
    freq[n++] = base.freq[i] as number;
  }
  for (let i = 0; i < fresh.rows.length; i++) {
    rows[n] = (fresh.rows[i] as number) + offset;
    freq[n++] = fresh.freq[i] as number;
  }
  return { rows: rows.subarray(0, n), freq: freq.subarray(0, n) };
}

export class LayeredTrigrams extends LayeredRows implements TrigramSource {
  constructor(
    private readonly snapshot: TrigramMemory,
    private readonly now: TrigramMemory,
    changed: ReadonlySet<number>,
  ) {
    super(snapshot, now, changed);
  }

  hits(phrase: Uint8Array, weights: readonly number[]): PhraseHits {
    const base = this.snapshot.hits(phrase, weights);
    const offset = this.snapshot.rowCount;
    return layeredHits(base, this.stale, this.now.hits(phrase, weights), offset);
  }
}

export class LayeredWords extends LayeredRows implements WordSource {
  constructor(
    private readonly snapshot: WordMemory,
    private readonly now: WordMemory,
    changed: ReadonlySet<number>,
  ) {
    super(snapshot, now, changed);
  }

  get weights(): readonly number[] {
    return this.snapshot.weights;
  }

  hits(text: string, prefix: boolean): PhraseHits | null {
    const base = this.snapshot.hits(text, prefix);
    const fresh = base && this.now.hits(text, prefix);
    if (!base || !fresh) return null;
    return layeredHits(base, this.stale, fresh, this.snapshot.rowCount);
  }

  /**
   * Each phrase's row count or less (the snapshot's count less all its stale rows, plus the fresh
   * memory's): a smaller count only raises the bound that skips a ranker (score-bound.ts), so it
   * stays a bound. Null where either memory cannot count a phrase.
   */
  countsAtMost(phrases: ReadonlyArray<{ text: string; prefix: boolean }>): number[] | null {
    const base = this.snapshot.counts(phrases);
    const fresh = this.now.counts(phrases);
    if (!base || !fresh) return null;
    return base.map((n, i) => Math.max(0, n - this.stale.length) + (fresh[i] as number));
  }

  /**
   * As WordMemory.exactToken, over the tokens of both: a token only the changed concepts held
   * before may still count as one (FTS5's own list keeps such tokens too), which can only make
   * a term stay a prefix, never match fewer rows.
   */
  exactToken(text: string): string | undefined {
    const both = new Set([...this.snapshot.completions(text, 2), ...this.now.completions(text, 2)]);
    return exactTokenOf(text, [...both]);
  }
}
