/**
 * Dumps the keyword-search answers of a varied query set over a KB's index, to check that a
 * search optimization changes no answer (hits, order, snippets, `match` kind) on a large KB:
 *
 *   npx tsx bench/search-answers.ts KBROOT OUT.json     # once before, once after the change
 *   npx tsx bench/search-answers.ts --compare A.json B.json
 *
 * ~700 queries: the bench's hit queries, short and long prefixes, 1–3 word combinations, quoted
 * phrases, fragments inside words, punctuation, non-ASCII, misses (substring fallback), limits
 * 1–100, scopes and visibility rules by map and by type. Deterministic for a KB.
 */
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { Visibility } from "../src/kb/core/types.js";
import { VISIBLE_ALL } from "../src/kb/core/types.js";
import type { SearchQuery } from "../src/search/api.js";
import { HIT_QUERIES } from "./queries.js";
import { ADJECTIVES, NOUNS, TYPE_PALETTE, VERBS } from "./words.js";

function lcg(seed: number) {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
}

/** The query set for a KB whose top-level maps are `maps` (at least one). */
export function answerQueries(maps: string[]): SearchQuery[] {
  const r = lcg(7);
  const pick = (a: readonly string[]) => a[Math.floor(r() * a.length)] as string;
  const words = [...NOUNS, ...VERBS, ...ADJECTIVES];
  const map = (i: number) => maps[i % maps.length] as string;
  const oneMap: Visibility = { all: false, rules: [{ maps: [map(0)], journals: [], types: [] }] };
  const typed: Visibility = {
    all: false,
    rules: [
      { maps: [], journals: [], types: [TYPE_PALETTE[0] as string, TYPE_PALETTE[1] as string] },
      { maps: [map(1)], journals: [], types: [] },
    ],
  };
  const none: Visibility = { all: false, rules: [] };
  const base = [
    ...HIT_QUERIES,
    ...["vault token", "10.", "kubernetes cluster", '"shared bucket"', "gate", "res", "fire wall"],
    ...["xyzzy", "backup-restore", "a", "ro", "st", "ing", "tion", "data", "the", "and", "net*"],
    ...['"gateway"', "GATEWAY", "Résolver", "café", "a b c d", "-", "--", "gateway -"],
    ...["node.js", "10.0", "ops/", "x y z w v"],
  ];
  const out: SearchQuery[] = [];
  const add = (query: string, limit: number, visibility: Visibility, scope?: string) =>
    out.push({ query, limit, visibility, ...(scope ? { scope } : {}) });
  for (const q of base) for (const limit of [1, 5, 10, 25, 100]) add(q, limit, VISIBLE_ALL);
  for (let i = 0; i < 150; i++) add(pick(words), 1 + Math.floor(r() * 40), VISIBLE_ALL);
  for (let i = 0; i < 100; i++)
    add(
      `${pick(words)} ${pick(words)}`,
      1 + Math.floor(r() * 25),
      r() < 0.5 ? VISIBLE_ALL : oneMap,
    );
  for (let i = 0; i < 40; i++)
    add(`${pick(words)} ${pick(words)} ${pick(words)}`, 10, r() < 0.5 ? VISIBLE_ALL : typed);
  for (let i = 0; i < 60; i++)
    add(
      pick(words).slice(0, 1 + Math.floor(r() * 5)),
      [1, 10, 50][i % 3] as number,
      r() < 0.5 ? VISIBLE_ALL : oneMap,
    );
  for (let i = 0; i < 30; i++) add(pick(words), 10, VISIBLE_ALL, `${map(i)}/`);
  for (let i = 0; i < 20; i++) add(pick(words), 10, typed, map(i));
  for (let i = 0; i < 15; i++) add(`"${pick(words)} ${pick(words)}"`, 10, VISIBLE_ALL);
  for (let i = 0; i < 20; i++) add(pick(words).slice(1, 5), 10, VISIBLE_ALL);
  for (const q of base) add(q, 10, oneMap);
  for (const q of base.slice(0, 8)) add(q, 10, typed);
  for (const q of base.slice(0, 4)) add(q, 10, none);
  return out;
}

async function dump(root: string, outFile: string): Promise<void> {
  const { openKb } = await import("../src/kb/store/store.js");
  const { openKbIndex } = await import("../src/search/kb-index.js");
  const store = await openKb({
    name: "bench",
    root,
    allowArtifactWrite: false,
    autocommit: true,
    gitAuthor: { name: "bench", email: "bench@localhost" },
  } as never);
  const { index } = await openKbIndex(store);
  try {
    // The search memories (search-memory.ts) answer once built: wait for both, say whether they were.
    index.warmSearch();
    const settled = (waited: number) => {
      const { state, words } = index.searchMemory();
      if (state === "ready") return words.state !== "off";
      return waited > 1_000 && ["declined", "off"].includes(state);
    };
    for (let waited = 0; waited < 60_000 && !settled(waited); waited += 50) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const maps = fs
      .readdirSync(path.join(root, "data"), { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name)
      .sort();
    const answers = answerQueries(maps.length > 0 ? maps : ["ops"]).map((q) => ({
      q,
      r: index.search(q),
    }));
    fs.writeFileSync(outFile, JSON.stringify(answers, null, 1));
    const hits = answers.reduce((n, a) => n + a.r.results.length, 0);
    const memory = index.searchMemory();
    process.stdout.write(
      `${answers.length} queries, ${hits} hits → ${outFile} (trigram memory ${memory.state}, word memory ${memory.words.state}, answered ${memory.served} rankers)\n`,
    );
  } finally {
    index.close();
  }
}

function compare(a: string, b: string): number {
  const left = JSON.parse(fs.readFileSync(a, "utf8")) as unknown[];
  const right = JSON.parse(fs.readFileSync(b, "utf8")) as unknown[];
  let differ = 0;
  for (let i = 0; i < Math.max(left.length, right.length); i++) {
    if (JSON.stringify(left[i]) === JSON.stringify(right[i])) continue;
    if (differ++ < 5) process.stdout.write(`differs: ${JSON.stringify(left[i]).slice(0, 300)}\n`);
  }
  process.stdout.write(`${left.length} / ${right.length} answers, ${differ} differ\n`);
  return differ === 0 && left.length === right.length ? 0 : 1;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [first, second, third] = process.argv.slice(2);
  if (first === "--compare" && second && third) process.exitCode = compare(second, third);
  else if (first && second) await dump(first, second);
  else {
    process.stderr.write("usage: search-answers.ts KBROOT OUT.json | --compare A.json B.json\n");
    process.exitCode = 2;
  }
}
