/**
 * Last resort of keyword search: when neither all-terms nor any-term matched, look for the whole
 * query as a substring of titles and bodies (case- and diacritics-insensitive). The index matches
 * bodies at word starts only (docs/decisions.md §Search), which misses text without spaces (CJK)
 * and fragments inside words; this scan restores "substring-capable" matching for those queries
 * and costs a pass over the concepts only when the index found nothing. Pure over the docs given.
 */
import type { ConceptDoc, Visibility } from "../kb/types.js";
import { isVisible } from "../kb/visibility.js";
import type { SearchHit } from "./api.js";
import { makeSnippet } from "./snippet.js";

/** Lower case without diacritics, the way the index folds text. */
export function foldText(text: string): string {
  return text
    .normalize("NFD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase();
}

/** True when `id` is `scope` or below it (`infra` covers `infra/x`, not `infrastructure`). */
function inScope(id: string, scope: string | undefined): boolean {
  const clean = (scope ?? "")
    .trim()
    .replace(/^\/+|\/+$/g, "")
    .replace(/^data\//, "");
  if (clean === "" || clean === "data") return true;
  return id === clean || id.startsWith(`${clean}/`);
}

export function substringSearch(
  docs: Iterable<ConceptDoc>,
  query: { query: string; scope?: string; limit: number; visibility: Visibility },
): SearchHit[] {
  const needle = foldText(query.query.trim());
  if (needle === "") return [];
  const hits: Array<SearchHit & { rank: number }> = [];
  for (const doc of docs) {
    if (!inScope(doc.id, query.scope) || !isVisible(query.visibility, doc, doc.type)) continue;
    const inTitle = doc.title !== null && foldText(doc.title).includes(needle);
    if (!inTitle && !foldText(doc.body).includes(needle)) continue;
    hits.push({
      id: doc.id,
      title: doc.title,
      type: doc.type,
      map: doc.map,
      journal: doc.journal,
      snippet: makeSnippet(doc.body, [query.query.trim()]),
      rank: inTitle ? 0 : 1,
    });
  }
  return hits
    .sort((a, b) => a.rank - b.rank || (a.id < b.id ? -1 : 1))
    .slice(0, query.limit)
    .map(({ rank: _rank, ...hit }) => hit);
}
