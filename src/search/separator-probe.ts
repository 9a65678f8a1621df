/**
 * Which characters outside ASCII the word index's tokenizer treats as separators, asked of
 * SQLite itself: a one-row FTS5 table with the same tokenizer is given `a<c>b` and holds the
 * tokens `a` and `b` exactly when `c` separates words. The word memory's build (word-arrays.ts)
 * asks once per distinct character; FTS5's Unicode tables (which differ from V8's: a character
 * unassigned in SQLite's Unicode version is a token character there) are never copied, so an
 * upgraded SQLite is asked, not assumed.
 */
import Database from "better-sqlite3";
import { WORD_TOKENIZER } from "./schema.js";

/** Distinct characters asked about in one build at most; past it, the answer is "not one". */
const MAX_ASKED = 4_096;

export interface SeparatorProbe {
  isSeparator(codePoint: number): boolean;
  close(): void;
}

export function openSeparatorProbe(): SeparatorProbe {
  const db = new Database(":memory:");
  db.exec(
    `CREATE VIRTUAL TABLE probe USING fts5(x, tokenize='${WORD_TOKENIZER}');` +
      "CREATE VIRTUAL TABLE probe_terms USING fts5vocab(probe, instance);",
  );
  const insert = db.prepare("INSERT INTO probe(rowid, x) VALUES (1, ?)");
  const terms = db.prepare("SELECT term FROM probe_terms ORDER BY offset").pluck();
  const clear = db.prepare("DELETE FROM probe");
  const known = new Map<number, boolean>();
  return {
    isSeparator(codePoint: number): boolean {
      const seen = known.get(codePoint);
      if (seen !== undefined) return seen;
      if (known.size >= MAX_ASKED || !isScalarValue(codePoint)) return false;
      insert.run(`a${String.fromCodePoint(codePoint)}b`);
      const tokens = terms.all();
      clear.run();
      const separates = tokens.length === 2 && tokens[0] === "a" && tokens[1] === "b";
      known.set(codePoint, separates);
      return separates;
    },
    close: () => db.close(),
  };
}

/** A Unicode scalar value (what valid UTF-8 encodes): no surrogate, nothing past U+10FFFF. */
function isScalarValue(codePoint: number): boolean {
  return codePoint >= 0 && codePoint <= 0x10ffff && (codePoint < 0xd800 || codePoint > 0xdfff);
}
