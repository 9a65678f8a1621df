/** "Did you mean …?" for an unknown config key: the nearest known key by edit distance. */

/** Optimal string alignment distance: insert, delete, substitute, swap two neighbours (all 1). */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const row = d[i] as number[];
      const up = d[i - 1] as number[];
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min(
        (up[j] as number) + 1,
        (row[j - 1] as number) + 1,
        (up[j - 1] as number) + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        row[j] = Math.min(row[j] as number, ((d[i - 2] as number[])[j - 2] as number) + 1);
    }
  }
  return (d[a.length] as number[])[b.length] as number;
}

/**
 * The known key closest to `word`, when it is close enough to be a typo (at most 2 edits, or a
 * third of the word for long keys); ties go to the first candidate.
 */
export function nearestKey(word: string, candidates: readonly string[]): string | undefined {
  const limit = Math.max(2, Math.floor(word.length / 3));
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const c of candidates) {
    const distance = editDistance(word.toLowerCase(), c.toLowerCase());
    if (distance < bestDistance) {
      best = c;
      bestDistance = distance;
    }
  }
  return bestDistance <= limit ? best : undefined;
}

/** The message for one unknown key, with the suggestion when there is one. */
export function unknownKeyMessage(word: string, candidates: readonly string[]): string {
  const near = nearestKey(word, candidates);
  return near ? `unknown key \`${word}\`; did you mean \`${near}\`?` : `unknown key \`${word}\``;
}
