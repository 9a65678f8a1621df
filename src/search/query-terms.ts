/**
 * Turns a free-text query into terms and FTS5 expressions. Pure.
 * Terms are whitespace-separated words; a double-quoted run is one term (a phrase). Every term
 * with a letter or digit matches the word index as a prefix (`gate` → `gateway`, `10` → `10.0.0.1`);
 * terms of 3+ characters also match the trigram index of id/title/tags as substrings. Terms
 * without any letter or digit cannot use either index and are matched with LIKE.
 */
export const MIN_FTS_TERM = 3;

export interface QueryTerms {
  /** Every term, lower-cased, duplicates removed, in query order. */
  all: string[];
  /** Terms the word index can match (they contain a letter or digit). */
  words: string[];
  /** Terms long enough for the trigram index. */
  long: string[];
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
    words: all.filter((t) => /[\p{L}\p{N}]/u.test(t)),
    long: all.filter((t) => [...t].length >= MIN_FTS_TERM),
  };
}

/** Leading/trailing punctuation of a bare word (`gateway,` `(dns)`) is not part of the term. */
function stripPunctuation(word: string): string {
  return word.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, "") || word;
}

/**
 * An FTS5 MATCH expression: every term quoted as a string (so FTS syntax in the query is plain
 * text), joined with AND or OR; `prefix` makes each a prefix query (a function: the terms it
 * answers true for).
 */
export function ftsExpression(
  terms: string[],
  op: "AND" | "OR",
  prefix: boolean | ((term: string) => boolean),
): string {
  const star = (t: string) => ((typeof prefix === "function" ? prefix(t) : prefix) ? "*" : "");
  return terms.map((t) => `"${t.replace(/"/g, '""')}"${star(t)}`).join(` ${op} `);
}
