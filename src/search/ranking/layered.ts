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

/** Rows of the snapshot's memory, then the changed concepts' (numbered from `base.rowCount`). */
class LayeredRows implements MemoryRows {
  constructor(
    protected readonly base: MemoryRows & { rowCount: number },
    protected readonly fresh: MemoryRows,
  ) {}

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
 * The snapshot's hits without the changed concepts (`changed`, by rowid), then the fresh
 * memory's hits, renumbered after the snapshot's rows.
 */
function layeredHits(
  base: PhraseHits,
  rowidOf: (row: number) => number,
  changed: ReadonlySet<number>,
  fresh: PhraseHits,
  offset: number,
): PhraseHits {
  const rows = new Int32Array(base.rows.length + fresh.rows.length);
  const freq = new Float64Array(rows.length);
  let n = 0;
  for (let i = 0; i < base.rows.length; i++) {
    const row = base.rows[i] as number;
    if (changed.has(rowidOf(row))) continue;
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
    private readonly changed: ReadonlySet<number>,
  ) {
    super(snapshot, now);
  }

  hits(phrase: Uint8Array, weights: readonly number[]): PhraseHits {
    const base = this.snapshot.hits(phrase, weights);
    const offset = this.snapshot.rowCount;
    const rowidOf = (row: number) => this.snapshot.rowid(row);
    return layeredHits(base, rowidOf, this.changed, this.now.hits(phrase, weights), offset);
  }
}

export class LayeredWords extends LayeredRows implements WordSource {
  constructor(
    private readonly snapshot: WordMemory,
    private readonly now: WordMemory,
    private readonly changed: ReadonlySet<number>,
  ) {
    super(snapshot, now);
  }

  get weights(): readonly number[] {
    return this.snapshot.weights;
  }

  hits(text: string, prefix: boolean): PhraseHits | null {
    const base = this.snapshot.hits(text, prefix);
    const fresh = base && this.now.hits(text, prefix);
    if (!base || !fresh) return null;
    const rowidOf = (row: number) => this.snapshot.rowid(row);
    return layeredHits(base, rowidOf, this.changed, fresh, this.snapshot.rowCount);
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
