/**
 * Which word-prefix terms of a query are whole tokens with no longer token behind them, so the
 * FTS5 prefix query `"gateway"*` can run as `"gateway"` with the same answer (docs/decisions.md "A
 * word term that no longer token starts with").
 *
 * A prefix query merges the doclists of every token starting with it before matching, and
 * bm25 runs the phrase a second time for its document count: on 100,000 concepts `"gateway"*`
 * ranked in ~4.7 ms and `"gateway"` in ~3.9 ms, `"latency"* AND "alert"*` in 1.5 ms and the exact
 * form in 0.9 ms. When the index holds no token that starts with the term other than the term
 * itself, both forms read the same doclist: the same rows, positions and document counts, so
 * the same bm25 scores — the answer cannot change. Asked of the index itself (fts5vocab, the
 * first token at or after `term + "\x01"`, ~0.03 ms), never of a copy that could be stale.
 */
import type { StatementCache } from "./statement-cache.js";

const VOCAB = "temp.concepts_fts_instances";
const NEXT_TERM = `SELECT term FROM ${VOCAB} WHERE term >= ? LIMIT 1`;

/** Terms that tokenize to themselves alone under unicode61 (lower-case ASCII letters, digits). */
const PLAIN_TOKEN = /^[a-z0-9]+$/;

/**
 * The subset of `terms` (folded, as queried) that may be matched exactly instead of as a prefix.
 * Empty while the connection holds a transaction (a build's rows may not be visible to the
 * vocabulary table the same way yet) and for terms that are not one plain ASCII token.
 */
export function wholeTokenTerms(cache: StatementCache, terms: readonly string[]): Set<string> {
  const whole = new Set<string>();
  if (cache.inTransaction) return whole;
  for (const term of terms) {
    if (!PLAIN_TOKEN.test(term) || whole.has(term)) continue;
    // Tokens never hold a control character, so every longer token starting with `term` sorts
    // at or after `term + "\x01"`: when the first token there does not start with `term`,
    // there is none.
    const next = nextTerm(cache, `${term}\x01`);
    if (next === null || !next.startsWith(term)) whole.add(term);
  }
  return whole;
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
