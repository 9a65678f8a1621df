/**
 * The in-memory copy of a KB's chunk vectors that queries scan: one float32 matrix loaded from
 * the index file, plus the rows written since (a concept re-embedded or removed retires its old
 * rows and appends new ones), so a write costs its own rows, not a reload of every vector. The
 * store reloads it whole once the appended rows pass a quarter of the matrix. Pure (no I/O).
 */
import { type DotKernel, dotAt } from "./dot-kernel.js";

export interface MatrixRow {
  vector: Float32Array;
  /** Offset in the body of the chunk's section. */
  start: number;
}

export class VectorMatrix {
  /** Owner index per concept id (the latest; older owners of the same id are dead). */
  private readonly index = new Map<string, number>();
  private dead: Uint8Array;
  private readonly extra: Array<MatrixRow & { owner: number }> = [];

  /**
   * Row r is kernel.matrix[r*dims .. (r+1)*dims), owned by concept ids[owner[r]], its section
   * at starts[r].
   */
  constructor(
    readonly dims: number,
    private readonly kernel: DotKernel,
    private readonly owner: Int32Array,
    private readonly starts: Int32Array,
    private readonly ids: string[],
  ) {
    ids.forEach((id, o) => {
      this.index.set(id, o);
    });
    this.dead = new Uint8Array(Math.max(16, ids.length));
  }

  /** Owner indexes in use so far (live and dead): the size of a per-owner array. */
  get owners(): number {
    return this.ids.length;
  }

  idOf(owner: number): string {
    return this.ids[owner] as string;
  }

  /** Rows appended since the load, relative to the loaded rows (the store reloads past 0.25). */
  get drift(): number {
    return this.extra.length / Math.max(1, this.owner.length);
  }

  /** The concept's rows become `rows` (none: the concept is gone). */
  replace(id: string, rows: readonly MatrixRow[]): void {
    const old = this.index.get(id);
    if (old !== undefined) this.dead[old] = 1;
    this.index.delete(id);
    if (rows.length === 0) return;
    const o = this.ids.push(id) - 1;
    if (o >= this.dead.length) {
      const grown = new Uint8Array(this.dead.length * 2);
      grown.set(this.dead);
      this.dead = grown;
    }
    this.index.set(id, o);
    for (const row of rows) this.extra.push({ ...row, owner: o });
  }

  /**
   * Best score and its section start per owner (−∞ for owners with no allowed live row).
   * `allowed` (per owner, 1 = allowed) is null when every concept is.
   */
  score(
    query: Float32Array,
    allowed: Uint8Array | null,
  ): { best: Float32Array; bestStart: Int32Array } {
    const best = new Float32Array(this.ids.length).fill(Number.NEGATIVE_INFINITY);
    const bestStart = new Int32Array(this.ids.length);
    const { owner, dims, dead } = this;
    // Every loaded row in one kernel call (SIMD); hidden and dead rows are skipped after it.
    const dots = this.kernel.scores(query);
    for (let r = 0; r < owner.length; r++) {
      const o = owner[r] as number;
      if (dead[o] === 1 || (allowed && allowed[o] === 0)) continue;
      const dot = dots[r] as number;
      if (dot > (best[o] as number)) {
        best[o] = dot;
        bestStart[o] = this.starts[r] as number;
      }
    }
    for (const row of this.extra) {
      const o = row.owner;
      if (dead[o] === 1 || (allowed && allowed[o] === 0)) continue;
      const dot = dotAt(row.vector, 0, query, dims);
      if (dot > (best[o] as number)) {
        best[o] = dot;
        bestStart[o] = row.start;
      }
    }
    return { best, bestStart };
  }
}
