/**
 * Positive introspection answers, reused for `cache_seconds` and never past the token's `exp`
 * (docs/decisions.md "OAuth: introspection answers are cached by digest, briefly"). Keyed by
 * the token's SHA-256, so the cache never holds a token; bounded, the oldest entry going first.
 */
import { tokenDigest } from "../tokens.js";
import type { Principal } from "../types.js";

export interface CachedAnswer {
  principal: Principal;
  /** The answer's `aud` (null: it had none), checked again for each request's audiences. */
  audiences: readonly string[] | null;
  /** Epoch ms after which the answer is not reused. */
  expiresAt: number;
}

/** The cache key of `token`: its SHA-256, hex. */
export function cacheKey(token: string): string {
  return tokenDigest(token).toString("hex");
}

export class IntrospectionCache {
  private readonly entries = new Map<string, CachedAnswer>();

  constructor(readonly maxEntries: number) {}

  get size(): number {
    return this.entries.size;
  }

  /** The unexpired answer under `key`, or undefined (an expired one is dropped). */
  get(key: string, now: number): CachedAnswer | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt > now) return entry;
    this.entries.delete(key);
    return undefined;
  }

  /** Stores `answer` under `key`, dropping the oldest entry when full. */
  set(key: string, answer: CachedAnswer): void {
    this.entries.delete(key);
    while (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (oldest.done) break;
      this.entries.delete(oldest.value);
    }
    this.entries.set(key, answer);
  }
}
