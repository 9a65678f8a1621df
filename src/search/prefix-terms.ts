/**
 * Which word-prefix terms of a query stand for exactly one token of the index, so the FTS5
 * prefix query `"gateway"*` can run as `"gateway"`, and `"restore"*` as `"restores"`, with the
 * same answer (docs/decisions.md "A word term that no longer token starts with", "A prefix with
 * one completion").
 *
 * A prefix query merges the doclists of every token starting with it before matching, and
 * bm25 runs the phrase a second time for its document count: on 100,000 concepts `"gateway"*`
 * ranked in ~4.7 ms and `"gateway"` in ~3.9 ms, `"backup" AND "restore"*` in 10.2 ms and
 * `"backup" AND "restores"` in 5.0 ms. When the index holds one token only that starts with the
 * term (the term itself, or one longer token), both forms read that token's doclist: the same
 * rows, positions and document counts, so the same bm25 scores — the answer cannot change.
 * Asked of the index itself (fts5vocab, the first token at or after a key, ~0.03 ms), never
 * of a copy that could be stale.
 *
 * Asking for the token after a term means stepping over the term's whole posting list (fts5vocab
 * scans leaf by leaf from where the term starts: `the\x01` took 1.3 ms on 100,000 concepts,
 * `the` 0.2). When the term has a second completion, a known token (the `vocab` table) names a
 * candidate and one seek of the index confirms it, which decides the same thing without the
 * step (docs/decisions.md "A second completion is confirmed, not stepped to"). A stale or
 * missing candidate only means the step is taken as before: the index decides, never the copy.
 */
import type { StatementCache } from "./statement-cache.js";

const VOCAB = "temp.concepts_fts_instances";
const NEXT_TERM = `SELECT term FROM ${VOCAB} WHERE term >= ? LIMIT 1`;

/** Tokens some text held (the `vocab` table): candidates only, each checked in the index. */
export interface KnownTokens {
  /** The first known token after `token` in binary order, or null. */
  after(token: string): string | null;
}

/** Terms that tokenize to themselves alone under unicode61 (lower-case ASCII letters, digits). */
const PLAIN_TOKEN = /^[a-z0-9]+$/;

/**
 * For each term of `terms` (folded, as queried) that may be matched exactly instead of as a
 * prefix, the token to match: the term itself when no longer token starts with it (or none
 * does), else the one longer token that does. Empty while the connection holds a transaction
 * (a build's rows may not be visible to the vocabulary table the same way yet) and for terms
 * that are not one plain ASCII token.
 */
export function exactTerms(
  cache: StatementCache,
  terms: readonly string[],
  known?: KnownTokens,
): Map<string, string> {
  const exact = new Map<string, string>();
  if (cache.inTransaction) return exact;
  for (const term of terms) {
    if (!PLAIN_TOKEN.test(term) || exact.has(term)) continue;
    const first = nextTerm(cache, term);
    if (first === null || !first.startsWith(term)) {
      exact.set(term, term); // no token starts with it: matches nothing either way
      continue;
    }
    // Tokens never hold a control character, so the token after `first` is the first one at or
    // after `first + "\x01"`: when it does not start with `term`, `first` is the only one.
    // A longer token is taken only when it is plain too (queried as itself, it is that token).
    if (first !== term && !PLAIN_TOKEN.test(first)) continue;
    if (known && secondKnown(cache, known, term, first)) continue;
    const second = nextTerm(cache, `${first}\x01`);
    if (second === null || !second.startsWith(term)) exact.set(term, first);
  }
  return exact;
}

/**
 * Up to `max` tokens of the index that start with `prefix`, in the index's (binary) order;
 * fewer when there are fewer. Each step is one seek in the vocabulary (~0.02 ms; stepping past a
 * token in most rows, such as `the`, ~0.7 ms), taken only when the caller asks for the next.
 */
export function* completions(
  cache: StatementCache,
  prefix: string,
  max: number,
): Generator<string> {
  if (cache.inTransaction || !PLAIN_TOKEN.test(prefix)) return;
  let next = nextTerm(cache, prefix);
  for (let found = 0; next?.startsWith(prefix) && found < max; found++) {
    yield next;
    if (found + 1 < max) next = nextTerm(cache, `${next}\x01`);
  }
}

/** True when a known token after `first` starts with `term` and the index holds it too. */
function secondKnown(
  cache: StatementCache,
  known: KnownTokens,
  term: string,
  first: string,
): boolean {
  const candidate = known.after(first);
  return candidate?.startsWith(term) === true && nextTerm(cache, candidate) === candidate;
}

function nextTerm(cache: StatementCache, from: string): string | null {
  let statement: ReturnType<StatementCache["get"]>;
  try {
    statement = cache.get(NEXT_TERM);
  } catch {
    // First use on this connection: temp tables live per connection.
    cache.exec(
      `CREATE VIRTUAL TABLE IF NOT EXISTS ${VOCAB} USING fts5vocab(main, concepts_fts, 'instance')`,
    );
    statement = cache.get(NEXT_TERM);
  }
  const row = statement.get(from) as { term: string } | undefined;
  return row ? row.term : null;
}
