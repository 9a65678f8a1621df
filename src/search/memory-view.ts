/**
 * What the search memories answer from at a moment: the snapshot's memories as built, or, once
 * this connection has changed some concepts since, the snapshot less those concepts plus those
 * concepts read anew (ranking/layered.ts; docs/decisions.md "The search memories serve through
 * writes"). A changed concept whose text the memories cannot hold (outside what they reproduce)
 * makes the view null: the searches rank in FTS5 until a rebuild.
 */

import { LayeredTrigrams, LayeredWords } from "./ranking/layered.js";
import {
  buildTrigramArrays,
  TRIGRAM_ROWS_OF_SQL,
  TrigramMemory,
  type TrigramRow,
} from "./ranking/trigram-memory.js";
import type { TrigramSource } from "./ranking/trigram-rank.js";
import { buildWordArrays, WORD_ROWS_OF_SQL, type WordRow } from "./ranking/word-arrays.js";
import type { WordQuery } from "./ranking/word-memory.js";
import { WordMemory, type WordSource } from "./ranking/word-memory.js";
import type { StatementCache } from "./statement-cache.js";
import type { WordBuildOptions } from "./word-build.js";

/** Concepts changed since a snapshot read anew beside it, at most; past them, a rebuild. */
export const MAX_CHANGED = 512;

export interface MemoryView {
  trigrams: TrigramSource;
  words: (WordSource & { exactToken(text: string): string | undefined }) | null;
  /**
   * Each phrase's row count, or a count at most it (with changed concepts beside the snapshot),
   * for the bound that skips a ranker; null where the view cannot say cheaply.
   */
  counts: ((phrases: WordQuery["phrases"]) => number[] | null) | null;
  /** Concepts read anew beside the snapshot. */
  changed: number;
}

export function snapshotView(trigrams: TrigramMemory, words: WordMemory | null): MemoryView {
  return { trigrams, words, counts: words && ((p) => words.counts(p)), changed: 0 };
}

export interface LayerOptions {
  maxTextBytes: number;
  words: WordBuildOptions | null;
  isSeparator: (codePoint: number) => boolean;
}

/** The view with the concepts `changed` (rowids) read anew; null when one cannot be held. */
export function layeredView(
  cache: StatementCache,
  snapshot: { trigrams: TrigramMemory; words: WordMemory | null },
  changed: readonly number[],
  opts: LayerOptions,
): MemoryView | null {
  const ids = JSON.stringify(changed);
  const changedSet = new Set(changed);
  const triRows = cache.get(TRIGRAM_ROWS_OF_SQL).raw().all(ids) as TrigramRow[];
  const tri = buildTrigramArrays(triRows, opts.maxTextBytes, { indexed: false });
  if (tri === null) return null;
  const trigrams = new LayeredTrigrams(snapshot.trigrams, new TrigramMemory(tri), changedSet);
  if (snapshot.words === null || opts.words === null)
    return { trigrams, words: null, counts: null, changed: changedSet.size };
  const wordRows = cache.get(WORD_ROWS_OF_SQL).raw().all(ids) as WordRow[];
  const { weights, maxBytes } = opts.words;
  const arrays = buildWordArrays(wordRows, weights, maxBytes, opts.isSeparator);
  if (arrays === null) return null;
  const words = new LayeredWords(snapshot.words, new WordMemory(arrays), changedSet);
  return { trigrams, words, counts: (p) => words.countsAtMost(p), changed: changedSet.size };
}
