/**
 * Generates a KB in the Go layout for benchmarks: data/index.md, data/log.md, per map
 * `_map.md` (kind map, concept_types) and `index.md`, and concepts under `data/<map>/<topic>/`
 * with type/title/tags/timestamp frontmatter and 1–3 KB prose bodies carrying 2–6 `[[id]]`
 * links. Deterministic for a seed. Committed once with an explicit identity.
 */
import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { ADJECTIVES, CONNECTIVES, MAP_NAMES, NOUNS, PLACES, TYPE_PALETTE, VERBS } from "./words.js";
import { zipfVocabulary } from "./zipf.js";

const run = promisify(execFile);

export interface GenerateOptions {
  concepts: number;
  maps: number;
  seed: number;
}

export interface GeneratedConcept {
  id: string;
  map: string;
  type: string;
  title: string;
}

export const BENCH_GIT_ENV = {
  GIT_AUTHOR_NAME: "bench",
  GIT_AUTHOR_EMAIL: "bench@localhost",
  GIT_COMMITTER_NAME: "bench",
  GIT_COMMITTER_EMAIL: "bench@localhost",
};

/** mulberry32: small, fast, deterministic. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export async function generateKb(root: string, opts: GenerateOptions): Promise<GeneratedConcept[]> {
  const rand = rng(opts.seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)] as T;
  // Content words follow a Zipf law over ~4,000 words, so a query term hits a realistic share
  // of concepts (common words most, rare words a handful) instead of nearly all of them.
  const vocab = zipfVocabulary(NOUNS, 4000, rand);
  const maps = MAP_NAMES.slice(0, opts.maps);
  const concepts = planConcepts(opts, maps, vocab.draw, pick);
  const files = new Map<string, string>();
  files.set(
    "data/index.md",
    `${frontmatter({ type: "Index", title: "Knowledge Base" })}# Index\n\nGenerated KB.\n`,
  );
  files.set("data/log.md", "# Log\n\n## 2024-01-01T00:00:00Z\n\nKB generated.\n");
  for (const map of maps) {
    const types = TYPE_PALETTE.slice(0, 5);
    files.set(
      `data/${map}/_map.md`,
      `${frontmatter({
        type: "Map",
        title: capital(map),
        kind: "map",
        concept_types: `[${types.join(", ")}]`,
      })}# ${capital(map)}\n`,
    );
    files.set(
      `data/${map}/index.md`,
      `${frontmatter({ type: "Index", title: capital(map) })}# ${capital(map)}\n`,
    );
  }
  const start = Date.UTC(2023, 0, 1);
  for (const c of concepts) {
    const links = Array.from({ length: 2 + Math.floor(rand() * 5) }, () => pick(concepts).id);
    const ts = new Date(start + Math.floor(rand() * 500 * 86_400_000))
      .toISOString()
      .replace(/\.\d{3}Z$/, "Z");
    const tags = [vocab.draw(), vocab.draw(), pick(ADJECTIVES)];
    const fm = frontmatter({
      type: c.type,
      title: c.title,
      tags: `[${[...new Set(tags)].join(", ")}]`,
      timestamp: ts,
    });
    files.set(`data/${c.id}.md`, fm + body(c.title, links, rand, pick, vocab.draw));
  }
  await writeAll(root, files);
  await run("git", ["init", "-q", "-b", "main"], { cwd: root });
  // No background auto-gc while a benchmark measures commits.
  await run("git", ["config", "gc.auto", "0"], { cwd: root });
  await fs.appendFile(path.join(root, ".git/info/exclude"), ".cartographer/\n");
  await run("git", ["add", "-A"], { cwd: root, maxBuffer: 1 << 26 });
  await run("git", ["commit", "-q", "-m", "generate KB"], {
    cwd: root,
    env: { ...process.env, ...BENCH_GIT_ENV },
  });
  return concepts;
}

function planConcepts(
  opts: GenerateOptions,
  maps: string[],
  word: () => string,
  pick: <T>(l: readonly T[]) => T,
): GeneratedConcept[] {
  const out: GeneratedConcept[] = [];
  const used = new Set<string>();
  for (let i = 0; i < opts.concepts; i++) {
    const map = maps[i % maps.length] as string;
    const topic = pick(NOUNS);
    const title = `${capital(pick(ADJECTIVES))} ${word()} ${word()}`;
    let slug = title.toLowerCase().replace(/[^a-z0-9]+/g, "-");
    if (used.has(`${map}/${topic}/${slug}`)) slug = `${slug}-${i}`;
    const id = `${map}/${topic}/${slug}`;
    used.add(id);
    out.push({ id, map, type: pick(TYPE_PALETTE.slice(0, 5)), title });
  }
  return out;
}

function body(
  title: string,
  links: string[],
  rand: () => number,
  pick: <T>(l: readonly T[]) => T,
  word: () => string,
): string {
  const target = 1000 + Math.floor(rand() * 2000);
  const paragraphs: string[] = [`# ${title}`];
  let size = 0;
  let para: string[] = [];
  let linkIdx = 0;
  while (size < target) {
    let s = sentence(rand, pick, word);
    if (linkIdx < links.length && rand() < 0.3) s += ` See [[${links[linkIdx++]}]].`;
    para.push(s);
    size += s.length + 1;
    if (para.length >= 3 + Math.floor(rand() * 4)) {
      paragraphs.push(para.join(" "));
      para = [];
    }
  }
  if (para.length > 0) paragraphs.push(para.join(" "));
  const rest = links.slice(linkIdx);
  if (rest.length > 0) paragraphs.push(`## Related\n\n${rest.map((l) => `- [[${l}]]`).join("\n")}`);
  return `${paragraphs.join("\n\n")}\n`;
}

function sentence(rand: () => number, pick: <T>(l: readonly T[]) => T, word: () => string): string {
  const n = () => `${pick(ADJECTIVES)} ${word()}`;
  switch (Math.floor(rand() * 5)) {
    case 0:
      return `The ${n()} ${pick(VERBS)} the ${n()} for the ${word()} team.`;
    case 1:
      return `${pick(CONNECTIVES)} the ${word()} in ${pick(PLACES)} ${pick(VERBS)} every ${word()} before the ${n()}.`;
    case 2:
      return `Check the ${word()} ${word()} when the ${n()} ${pick(VERBS)} more than ${1 + Math.floor(rand() * 90)} requests.`;
    case 3:
      return `A ${n()} is kept on ${10 + Math.floor(rand() * 240)}.${Math.floor(rand() * 255)}.0.${Math.floor(rand() * 255)} and ${pick(VERBS)} the ${n()}.`;
    default:
      return `Nobody ${pick(VERBS)} the ${word()} by hand; the ${n()} does it ${pick(["daily", "hourly", "weekly", "on demand"])}.`;
  }
}

function frontmatter(fields: Record<string, string>): string {
  const lines = Object.entries(fields).map(([k, v]) => `${k}: ${v}`);
  return `---\n${lines.join("\n")}\n---\n`;
}

function capital(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

async function writeAll(root: string, files: Map<string, string>): Promise<void> {
  const dirs = new Set([...files.keys()].map((p) => path.dirname(path.join(root, p))));
  for (const d of dirs) await fs.mkdir(d, { recursive: true });
  const entries = [...files];
  const WIDTH = 64;
  for (let i = 0; i < entries.length; i += WIDTH) {
    await Promise.all(
      entries.slice(i, i + WIDTH).map(([p, text]) => fs.writeFile(path.join(root, p), text)),
    );
  }
}

/**
 * `npx tsx bench/gen-kb.ts DIR [--concepts N] [--maps M] [--seed S]`: generates one KB of the
 * given size (default 10,000 concepts in 8 maps), e.g. 100,000 for the scale figures.
 */
async function cli(argv: string[]): Promise<void> {
  const flag = (name: string, fallback: number) => {
    const at = argv.indexOf(`--${name}`);
    const value = at === -1 ? fallback : Number(argv[at + 1]);
    if (!Number.isInteger(value) || value < 1)
      throw new Error(`--${name} needs a positive integer, got ${argv[at + 1]}`);
    return value;
  };
  const dir = argv[0];
  if (!dir || dir.startsWith("--"))
    throw new Error("usage: gen-kb.ts DIR [--concepts N] [--maps M] [--seed S]");
  const opts = {
    concepts: flag("concepts", 10_000),
    maps: Math.min(flag("maps", 8), MAP_NAMES.length),
    seed: flag("seed", 42),
  };
  const started = performance.now();
  await generateKb(dir, opts);
  process.stderr.write(
    `generated ${opts.concepts} concepts in ${opts.maps} maps at ${dir} in ${((performance.now() - started) / 1000).toFixed(1)} s\n`,
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href)
  cli(process.argv.slice(2)).catch((err: unknown) => {
    process.stderr.write(`gen-kb: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  });
