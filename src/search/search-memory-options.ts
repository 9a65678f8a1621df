/**
 * The options, status and bounds of the search memories (search-memory.ts): what an index passes
 * in and what an operator and the metrics read back.
 */
import type { Logger } from "../logger.js";
import { BM25_WEIGHTS } from "./schema.js";
import type { WordBuildOptions } from "./word-build.js";

export interface SearchMemoryOptions {
  dbPath: string;
  /** Below this many concepts FTS5's trigram ranker is cheap enough: no memory is built. */
  minRows: number;
  /** The id, title and tags of all concepts above this many bytes: no memory (bounds RAM). */
  maxTextBytes: number;
  /** A build waits this long after a search found the memory stale (writes settle first). */
  quietMs?: number;
  /** Builds start at most this often (a stream of writes costs one build per gap). */
  minGapMs?: number;
  /** And no sooner than the last build's length times this (GAP_FACTOR; tests set 0). */
  gapFactor?: number;
  /** What all KBs' memories in this process may hold together (memory-build.ts). */
  budgetBytes?: number;
  /** The word memory too: bm25's column weights and its bound in bytes; null or absent: none. */
  words?: WordBuildOptions | null;
  logger?: Logger;
}

/** What an operator (and a test) can see of the memory. */
export interface SearchMemoryStatus {
  /**
   * ready: used; stale: the data changed since, a build follows; building; declined: not for
   * this data (under minRows, a field outside ASCII, over a bound); off: not asked for yet.
   */
  state: "ready" | "stale" | "building" | "declined" | "off";
  bytes: number;
  /** Ranker calls answered from memory since open (both memories). */
  served: number;
  /** The word memory: ready (used), declined (not for this data) or off (none built yet). */
  words: { state: "ready" | "declined" | "off"; bytes: number };
  /** Concepts changed since the snapshot, read anew beside it (search-memory.ts). */
  changed: number;
}

/** 100,000 concepts: FTS5's trigram ranker took 1–8 ms a query, the memory 0.2–2 (benchmarks.md). */
export const MEMORY_MIN_ROWS = 10_000;
/** ~140,000 concepts of the benchmark's shape (fields and 20 bytes a row); ~53 MiB held then. */
export const TRIGRAM_MAX_TEXT_BYTES = 16 * 1024 * 1024;
export const QUIET_MS = 2_000;
/** One trigram build of 100,000 concepts is ~1 s of a worker's CPU: at most ~3% of a core. */
export const MIN_GAP_MS = 30_000;
/** A build's length times this is the least gap before the next (a tenth of a core at most). */
export const GAP_FACTOR = 10;
/** ~31 MiB at 100,000 concepts of the benchmark's shape (219 MB of text, 15 M postings). */
export const WORD_MAX_BYTES = 96 * 1024 * 1024;

/** Changes to the defaults an index may ask for (tests lower the bounds and the pace). */
export type SearchMemoryOverrides = Partial<
  Pick<
    SearchMemoryOptions,
    "minRows" | "maxTextBytes" | "quietMs" | "minGapMs" | "gapFactor" | "budgetBytes" | "words"
  >
>;

/** The options of an index's memories: the defaults, with `overrides` over them. */
export function memoryOptions(overrides: SearchMemoryOverrides = {}) {
  return {
    minRows: MEMORY_MIN_ROWS,
    maxTextBytes: TRIGRAM_MAX_TEXT_BYTES,
    words: { weights: [...BM25_WEIGHTS], maxBytes: WORD_MAX_BYTES },
    ...overrides,
  };
}
