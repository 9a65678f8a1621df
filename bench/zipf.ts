/** A Zipf-distributed vocabulary for generated prose (deterministic given `rand`). */
const SYLLABLES = (
  "ka ro mi tel san dor vex lin pra qui sto ber nal fen gor hul ist jam kov lur mes nor " +
  "pel ras tun vor wil yar zen bri cal dun eph fro gla hin"
).split(" ");

export interface Vocabulary {
  words: string[];
  /** One word, rank r drawn with probability ∝ 1/r. */
  draw: () => string;
}

export function zipfVocabulary(
  common: readonly string[],
  size: number,
  rand: () => number,
): Vocabulary {
  const words = [...new Set(common)];
  const seen = new Set(words);
  while (words.length < size) {
    const n = 2 + Math.floor(rand() * 3);
    let w = "";
    for (let i = 0; i < n; i++) w += SYLLABLES[Math.floor(rand() * SYLLABLES.length)];
    if (!seen.has(w)) {
      seen.add(w);
      words.push(w);
    }
  }
  // Shuffle so the domain words land at every rank: a few very common, most rare.
  for (let i = words.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [words[i], words[j]] = [words[j] as string, words[i] as string];
  }
  const cumulative: number[] = [];
  let sum = 0;
  for (let r = 1; r <= words.length; r++) {
    sum += 1 / r;
    cumulative.push(sum);
  }
  const draw = () => {
    const x = rand() * sum;
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((cumulative[mid] as number) < x) lo = mid + 1;
      else hi = mid;
    }
    return words[lo] as string;
  };
  return { words, draw };
}
