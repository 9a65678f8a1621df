/**
 * Interns ASCII tokens given as byte ranges, numbering them 0, 1, 2… in first-seen order: an
 * open-addressing hash over the bytes themselves, so the tens of millions of tokens a large KB's
 * word memory reads (word-arrays.ts) never become JavaScript strings; only the distinct ones do,
 * once, at the end. Pure.
 */
export class TermTable {
  private text = new Uint8Array(1 << 16);
  private used = 0;
  private starts = new Int32Array(1 << 10);
  private count = 0;
  /** Slot → term number + 1 (0: empty). Kept at most half full. */
  private slots = new Int32Array(1 << 12);

  /** Bytes held for the terms and the table. */
  get bytes(): number {
    return this.used + this.count * 4 + this.slots.byteLength;
  }

  /**
   * The number of `bytes[start, end)`, given a new one when first seen; `hash` is theirs by
   * hashOf (the caller computes it while it scans them).
   */
  intern(bytes: Uint8Array, start: number, end: number, hash: number): number {
    const mask = this.slots.length - 1;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const held = this.slots[slot] as number;
      if (held === 0) return this.add(bytes, start, end, slot);
      if (this.equals(held - 1, bytes, start, end)) return held - 1;
    }
  }

  /** Every term as a string, by number. */
  strings(): string[] {
    const out: string[] = new Array(this.count);
    const decoder = new TextDecoder("latin1");
    for (let t = 0; t < this.count; t++) out[t] = decoder.decode(this.termBytes(t));
    return out;
  }

  private termBytes(term: number): Uint8Array {
    const start = this.starts[term] as number;
    const end = term + 1 < this.count ? (this.starts[term + 1] as number) : this.used;
    return this.text.subarray(start, end);
  }

  private equals(term: number, bytes: Uint8Array, start: number, end: number): boolean {
    const from = this.starts[term] as number;
    const to = term + 1 < this.count ? (this.starts[term + 1] as number) : this.used;
    if (to - from !== end - start) return false;
    const text = this.text;
    for (let i = 0; i < to - from; i++) if (text[from + i] !== bytes[start + i]) return false;
    return true;
  }

  private add(bytes: Uint8Array, start: number, end: number, slot: number): number {
    const term = this.count++;
    if (this.used + end - start > this.text.length) {
      const text = new Uint8Array(Math.max(this.text.length * 2, this.used + end - start));
      text.set(this.text.subarray(0, this.used));
      this.text = text;
    }
    if (term >= this.starts.length) {
      const starts = new Int32Array(this.starts.length * 2);
      starts.set(this.starts);
      this.starts = starts;
    }
    this.starts[term] = this.used;
    this.text.set(bytes.subarray(start, end), this.used);
    this.used += end - start;
    this.slots[slot] = term + 1;
    if (this.count * 2 > this.slots.length) this.rehash();
    return term;
  }

  private rehash(): void {
    const slots = new Int32Array(this.slots.length * 2);
    const mask = slots.length - 1;
    for (let term = 0; term < this.count; term++) {
      const held = this.termBytes(term);
      let slot = hashOf(held, 0, held.length) & mask;
      while (slots[slot] !== 0) slot = (slot + 1) & mask;
      slots[slot] = term + 1;
    }
    this.slots = slots;
  }
}

export const FNV_OFFSET = 0x811c9dc5;
export const FNV_PRIME = 0x01000193;

/** FNV-1a over `bytes[start, end)`. */
export function hashOf(bytes: Uint8Array, start: number, end: number): number {
  let hash = FNV_OFFSET;
  for (let i = start; i < end; i++) hash = Math.imul(hash ^ (bytes[i] as number), FNV_PRIME);
  return hash;
}
