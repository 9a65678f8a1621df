/**
 * The contract of the per-KB search index (SQLite FTS5, `<kb>/.cartographer/index.db`).
 * Derived and rebuildable: a corrupt or missing file is rebuilt, never fatal. Every query takes
 * a `Visibility` and applies it INSIDE the SQL query, before LIMIT, so counts and pages never
 * reveal a hidden concept (D118).
 */
import type { ConceptDoc, Visibility } from "../kb/core/types.js";

export interface ReconcileStats {
  added: number;
  changed: number;
  removed: number;
  unchanged: number;
}

export interface SearchQuery {
  query: string;
  /** Id prefix, e.g. `infra` or `infra/rete` (matches the id itself and ids below it). */
  scope?: string;
  limit: number;
  visibility: Visibility;
}

export interface SearchHit {
  id: string;
  title: string | null;
  type: string;
  map: string | null;
  journal: string | null;
  /** About 200 characters around the first match. */
  snippet: string;
}

export interface SearchResult {
  /** Best first: the order is the rank (no score field, see search-query.ts). */
  results: SearchHit[];
  /**
   * `all_terms` when every term matched; `any_term` when the fallback ran; `substring` when only
   * the whole query found inside a title or body matched (substring-fallback.ts).
   */
  match: "all_terms" | "any_term" | "substring" | "none";
}

export interface ListQuery {
  /** `key=value` / `key!=value`; list fields match any element. */
  where?: string[];
  /** Bounds on the concept's `timestamp` frontmatter (ISO-8601), inclusive. */
  since?: string;
  until?: string;
  /** Id prefix. */
  prefix?: string;
  /** Only ids ≥ this one (in id order): where a page or a completion starts (MCP resources). */
  from?: string;
  limit: number;
  visibility: Visibility;
}

export interface ListItem {
  id: string;
  title: string | null;
  type: string;
  map: string | null;
  journal: string | null;
  hash: string;
}

export interface ListResult {
  items: ListItem[];
  /** Count of every visible match (not only this page). */
  total: number;
  truncated: boolean;
}

export interface SearchIndex {
  /** Brings the index in line with the docs (by content hash): new/changed/removed. */
  reconcile(docs: Iterable<ConceptDoc>): ReconcileStats;
  upsert(doc: ConceptDoc): void;
  remove(id: string): void;
  search(query: SearchQuery): SearchResult;
  list(query: ListQuery): ListResult;
  /** Number of indexed concepts. */
  count(): number;
  close(): void;
}
