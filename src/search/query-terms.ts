/**
 * Turns a free-text query into terms and FTS5 expressions. Pure.
 * Terms are whitespace-separated words; a double-quoted run is one term (a phrase). The trigram
 * tokenizer matches any substring of at least 3 characters, so every term of 3+ characters
 * becomes an FTS5 string; shorter terms cannot use the FTS index and are matched with LIKE.
 */
export const MIN_FTS_TERM = 3;

export interface QueryTerms {
  /** Every term, lower-cased, duplicates removed, in query order. */
  all: string[];
  /** Terms long enough for the trigram index. */
  long: string[];
  /** Terms matched with LIKE (1–2 characters). */
  short: string[];
}

export function parseTerms(query: string): QueryTerms {
  const all: string[] = [];
  const re = /"([^"]*)"|(\S+)/g;
  for (const m of query.matchAll(re)) {
    const raw = (m[1] ?? m[2] ?? "").trim().toLowerCase();
    const term = m[1] === undefined ? stripPunctuation(raw) : raw.replace(/\s+/g, " ");
    if (term.length > 0 && !all.includes(term)) all.push(term);
  }
  return {
    all,
    long: all.filter((t) => [...t].length >= MIN_FTS_TERM),
    short: all.filter((t) => [...t].length < MIN_FTS_TERM),
  };
}

/** Leading/trailing punctuation of a bare word (`gateway,` `(dns)`) is not part of the term. */
function stripPunctuation(word: string): string {
  return word.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, "") || word;
}

/** An FTS5 MATCH expression: every term quoted as a string, joined with AND or OR. */
export function ftsExpression(terms: string[], op: "AND" | "OR"): string {
  return terms.map((t) => `"${t.replace(/"/g, '""')}"`).join(` ${op} `);
}
