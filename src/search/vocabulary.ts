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

import { escapeLike } from "./sql-fragment.js";
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

  constructor(private readonly cache: StatementCache) {}

  /** Records the tokens of folded texts (call inside the write transaction). */
  add(folded: string[]): void {
    this.known ??= new Set(this.cache.get("SELECT term FROM vocab").pluck().all() as string[]);
    const insert = this.cache.get("INSERT OR IGNORE INTO vocab(term) VALUES (?)");
    for (const text of folded) {
      for (const term of tokenRuns(text)) {
        if (this.known.has(term)) continue;
        this.known.add(term);
        insert.run(term);
      }
    }
  }

  /** Forgets the in-memory copy (after the table was dropped or the database replaced). */
  reset(): void {
    this.known = null;
  }

  /**
   * An FTS5 expression selecting every concept that may contain the folded `needle`: for each
   * token run of the needle, any token containing it. `none` when some run is in no token (no
   * concept contains the needle); null when the needle has no selective run (scan instead).
   */
  candidates(needle: string): string | "none" | null {
    const groups: string[] = [];
    const lookup = this.cache.get(
      `SELECT term FROM vocab WHERE term LIKE ? ESCAPE '\\' LIMIT ${MAX_FRAGMENT_TOKENS + 1}`,
    );
    for (const run of tokenRuns(needle)) {
      const terms = lookup.pluck().all(`%${escapeLike(run)}%`) as string[];
      if (terms.length === 0) return "none";
      if (terms.length > MAX_FRAGMENT_TOKENS) continue;
      groups.push(`(${terms.map((t) => `"${t.replace(/"/g, '""')}"`).join(" OR ")})`);
    }
    return groups.length > 0 ? groups.join(" AND ") : null;
  }
}
