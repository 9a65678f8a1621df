/**
 * The word memory's arrays read from an index connection (the build worker's own, or a test's
 * `:memory:` index): the rows the word index was built from, separators outside ASCII asked of
 * SQLite (separator-probe.ts).
 */
import type Database from "better-sqlite3";
import {
  buildWordArrays,
  WORD_ROWS_SQL,
  type WordArrays,
  type WordRow,
} from "./ranking/word-arrays.js";
import { openSeparatorProbe } from "./separator-probe.js";

export interface WordBuildOptions {
  /** bm25's column weights (id, title, tags, body). */
  weights: number[];
  /** The postings, terms and rows above this many bytes: no memory (bounds RAM). */
  maxBytes: number;
}

export function readWordArrays(db: Database.Database, opts: WordBuildOptions): WordArrays | null {
  const probe = openSeparatorProbe();
  try {
    const rows = db.prepare(WORD_ROWS_SQL).raw().iterate() as Iterable<WordRow>;
    return buildWordArrays(rows, opts.weights, opts.maxBytes, (cp) => probe.isSeparator(cp));
  } finally {
    probe.close();
  }
}
