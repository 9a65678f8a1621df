/**
 * Reciprocal-rank fusion (Cormack et al. 2009): each ranking adds 1 / (K + rank) to an item's
 * score; items are ordered by the sum. Robust to the two rankings' incomparable scores (bm25
 * vs cosine), no tuning beyond K. The first ranking's copy of an item wins (its snippet shows
 * the words matched). Pure.
 */

/** The usual constant: damps the weight of the very top ranks. */
export const RRF_K = 60;

export function reciprocalRankFusion<T extends { id: string }>(
  rankings: ReadonlyArray<readonly T[]>,
  limit: number,
): T[] {
  const score = new Map<string, number>();
  const item = new Map<string, T>();
  for (const ranking of rankings) {
    ranking.forEach((hit, rank) => {
      score.set(hit.id, (score.get(hit.id) ?? 0) + 1 / (RRF_K + rank + 1));
      if (!item.has(hit.id)) item.set(hit.id, hit);
    });
  }
  // Ties (same sum) keep first-seen order: Array.prototype.sort is stable.
  return [...item.keys()]
    .sort((a, b) => (score.get(b) ?? 0) - (score.get(a) ?? 0))
    .slice(0, limit)
    .map((id) => item.get(id) as T);
}
