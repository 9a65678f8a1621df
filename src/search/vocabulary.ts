/**
 * The vocabulary of the word index: every distinct token of the indexed titles and bodies, in
 * table `vocab`. The substring fallback looks a fragment up here first (a scan of distinct
 * tokens, not of the text): no token contains it → no concept can, answered at once; a few
 * tokens do → only the concepts holding them (word index) are checked with LIKE.
 *
 * Tokens are cut as the word index cuts them (unicode61: runs of letters, digits and private-use
 * characters) from the same folded text it indexes (text-bounds.ts foldText), so a fragment
 * found in a concept's folded text always lies inside one of its tokens. Tokens are never
 * removed (a stale one only adds a candidate that LIKE then rejects); a rebuild starts afresh.
 */

import type Database from "better-sqlite3";
import type { StatementCache } from "./statement-cache.js";

/** Runs of token characters, as unicode61 splits text (its default categories L*, N*, Co). */
const TOKEN_RUN = /[\p{L}\p{N}\p{Co}]+/gu;

/** Above this many tokens containing a fragment, the fragment is not selective: scan instead. */
export const MAX_FRAGMENT_TOKENS = 256;

/** Distinct token runs of already folded (lower-case, no diacritics) text. Pure. */
export function tokenRuns(folded: string): Set<string> {
  return new Set(folded.match(TOKEN_RUN) ?? []);
}

export class Vocabulary {
  private known: Set<string> | null = null;
  /** Every known token, one per line (`\n` around each), for a native substring scan. */
  private lines: string | null = null;

  constructor(private readonly cache: StatementCache) {}

  /** Records the tokens of folded texts (call inside the write transaction). */
  add(folded: string[]): void {
    const known = this.terms();
    const insert = this.cache.get("INSERT OR IGNORE INTO vocab(term) VALUES (?)");
    for (const text of folded) {
      for (const term of tokenRuns(text)) {
        if (known.has(term)) continue;
        known.add(term);
        this.lines = null;
        insert.run(term);
      }
    }
  }

  /**
   * The in-memory copy of the table (loaded once; this process is the index's only writer, the
   * per-KB lock sees to that). It may hold a term a rolled-back write added, never lack one.
   */
  private terms(): Set<string> {
    this.known ??= new Set(this.cache.get("SELECT term FROM vocab").pluck().all() as string[]);
    return this.known;
  }

  /**
   * The first token of the table after `token` (binary order), or null: a candidate the caller
   * checks in the word index (prefix-terms.ts), the table may hold tokens no concept has now.
   */
  after(token: string): string | null {
    const next = this.cache.get("SELECT term FROM vocab WHERE term > ? LIMIT 1").pluck().get(token);
    return typeof next === "string" ? next : null;
  }

  /** Forgets the in-memory copy (after the table was dropped or the database replaced). */
  reset(): void {
    this.known = null;
    this.lines = null;
  }

  /**
   * An FTS5 expression selecting every concept that may contain the folded `needle`: for each
   * token run of the needle, any token containing it. `none` when some run is in no token (no
   * concept contains the needle); null when the needle has no selective run (scan instead).
   */
  candidates(needle: string): string | "none" | null {
    const groups: string[] = [];
    for (const run of tokenRuns(needle)) {
      const terms = this.containing(run);
      if (terms.length === 0) return "none";
      if (terms.length > MAX_FRAGMENT_TOKENS) continue;
      groups.push(`(${terms.map((t) => `"${t.replace(/"/g, '""')}"`).join(" OR ")})`);
    }
    return groups.length > 0 ? groups.join(" AND ") : null;
  }

  /**
   * Up to MAX_FRAGMENT_TOKENS + 1 known tokens containing `run` (both folded), found with
   * indexOf over all tokens joined by newlines (tokens hold no `\n`). `LIKE '%run%'` over the
   * vocab table did the same scan row by row, ~1 ms per 4,400 tokens on the event loop of every
   * no-hit query (/health stalled while clients ran worst-case searches; docs/benchmarks.md
   * "Hardening").
   */
  private containing(run: string): string[] {
    this.lines ??= `\n${[...this.terms()].join("\n")}\n`;
    const text = this.lines;
    const out: string[] = [];
    for (let at = text.indexOf(run); at >= 0 && out.length <= MAX_FRAGMENT_TOKENS; ) {
      const start = text.lastIndexOf("\n", at) + 1;
      const end = text.indexOf("\n", at);
      out.push(text.slice(start, end));
      at = text.indexOf(run, end);
    }
    return out;
  }
}

/** Word-index terms read per fillVocabularyStep: one step holds the event loop ~0.1 s at most. */
const FILL_STEP_TERMS = 100;

/**
 * Adds the word index's own title and body tokens after `after` (in term order, up to
 * FILL_STEP_TERMS of them) to `vocab`, through fts5vocab in C. A bulk build skips
 * Vocabulary.add for rows whose folded title and body are pure ASCII, where unicode61's tokens
 * are exactly TOKEN_RUN's ([a-z0-9] runs), and fills them in here — the regex per row was ~30%
 * of a 20,000-concept build. Rows with other text still go through add(), so a script unicode61
 * splits differently keeps the tokens TOKEN_RUN cuts. Reading the terms walks their whole
 * posting lists (1.6–2.3 s for all of 100,000 concepts at load 12), hence steps with the event
 * loop free between them. Returns the last term read, or null when none is left. Call inside
 * a write transaction; reset() the Vocabulary afterwards.
 */
export function fillVocabularyStep(db: Database.Database, after: string): string | null {
  db.exec(
    "CREATE VIRTUAL TABLE IF NOT EXISTS temp.concepts_fts_terms USING fts5vocab(main, concepts_fts, 'col')",
  );
  // Term order comes from fts5vocab itself (no sort), so each step reads only its own terms.
  const terms = db
    .prepare(
      "SELECT DISTINCT term FROM temp.concepts_fts_terms WHERE term > ? AND col IN ('title', 'body') ORDER BY term LIMIT ?",
    )
    .pluck()
    .all(after, FILL_STEP_TERMS) as string[];
  const insert = db.prepare("INSERT OR IGNORE INTO vocab(term) VALUES (?)");
  for (const term of terms) insert.run(term);
  return terms.length < FILL_STEP_TERMS ? null : (terms.at(-1) as string);
}

/** Every step of fillVocabularyStep from `after` on, at once. */
export function fillVocabulary(db: Database.Database, after = ""): void {
  for (let from: string | null = after; from !== null; ) from = fillVocabularyStep(db, from);
}
