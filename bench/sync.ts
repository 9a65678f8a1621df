/**
 * Section `sync` (docs/benchmarks.md "Remote sync"): remote sync figures against local bare
 * repositories.
 *  - write + commit + debounced push through the call pipeline vs a raw `git commit && git push`
 *    loop (target ≥ 0.7×; the burst's one push is inside the measured time);
 *  - convergence: a write on one instance until `search` on another finds it, 3 instances ×
 *    8 writers, in_window 1 s with a 1 s poll (target p50 ≤ in_window + 1 s);
 *  - an incoming pull of 100 changed concepts into a clone of the 10,000-concept KB: the
 *    index update from the diff (target ≤ 0.5 s), and the whole pull (fetch + rebase + index).
 */
import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import type { SyncSettings } from "../src/kb/core/types.js";
import { initKb } from "../src/kb/store/init.js";
import { silentLogger } from "../src/logger.js";
import { LOCAL_ADMIN } from "../src/mcp/context.js";
import { surfaceForMount } from "../src/mcp/surface-for-mount.js";
import { closeMount, type MountedKb, mountKb } from "../src/runtime/mount.js";
import { reindexPaths } from "../src/runtime/mount-sync.js";
import type { BenchContext } from "./context.js";
import { BENCH_GIT_ENV } from "./gen-kb.js";
import { type Section, summarize } from "./harness.js";

const exec = promisify(execFile);
const env = { ...process.env, ...BENCH_GIT_ENV };
const git = (cwd: string, ...args: string[]) => exec("git", args, { cwd, env });
const ROUNDS = 20;

function syncSettings(over: Partial<SyncSettings>): SyncSettings {
  return { enabled: true, inWindowMs: 30_000, outDebounceMs: 3_000, pollMs: 0, env, ...over };
}

async function bareWithKb(dir: string): Promise<string> {
  const bare = path.join(dir, "remote.git");
  const seed = path.join(dir, "seed");
  await git(dir, "init", "-q", "--bare", "-b", "main", bare);
  await initKb(seed, { gitAuthor: { name: "bench", email: "bench@localhost" } });
  await git(seed, "branch", "-M", "main");
  await git(seed, "push", "-q", bare, "main");
  return bare;
}

async function mountClone(
  bare: string,
  root: string,
  sync: Partial<SyncSettings>,
): Promise<MountedKb> {
  await git(path.dirname(root), "clone", "-q", bare, root);
  return mountKb(
    {
      name: "bench",
      root,
      allowArtifactWrite: false,
      autocommit: true,
      gitAuthor: { name: "bench", email: "bench@localhost" },
      sync: syncSettings(sync),
    },
    { logger: silentLogger },
  );
}

const callOn = (mount: MountedKb) => {
  const surface = surfaceForMount(mount, { logger: silentLogger });
  return (name: string, args: Record<string, unknown>) =>
    surface.callTool(name, args, { principal: LOCAL_ADMIN, transport: "in-memory", requestId: "" });
};

async function throughput(dir: string) {
  const bare = await bareWithKb(dir);
  const raw = path.join(dir, "raw");
  await git(dir, "clone", "-q", bare, raw);
  let rawMs = 0;
  for (let i = 0; i < ROUNDS; i++) {
    const start = performance.now();
    const rel = `data/raw-${i}.md`;
    await fs.writeFile(path.join(raw, rel), `---\ntype: note\ntitle: raw ${i}\n---\nraw ${i}\n`);
    await git(raw, "add", "--", rel);
    await git(raw, "commit", "-q", "-m", `raw: ${rel}`);
    await git(raw, "push", "-q", "origin", "HEAD:main");
    rawMs += performance.now() - start;
  }
  const mount = await mountClone(bare, path.join(dir, "served"), { outDebounceMs: 3_000 });
  const call = callOn(mount);
  const start = performance.now();
  for (let i = 0; i < ROUNDS; i++)
    await call("concept_write", {
      id: `served-${i}`,
      frontmatter: { type: "note", title: `served ${i}` },
      body: `served ${i}\n`,
    });
  await mount.runtime.sync?.flush(); // the burst's push, inside the measured time
  const servedMs = performance.now() - start;
  await closeMount(mount);
  return { raw: ROUNDS / (rawMs / 1000), served: ROUNDS / (servedMs / 1000) };
}

async function convergence(dir: string) {
  const bare = await bareWithKb(dir);
  const sync = { inWindowMs: 1_000, outDebounceMs: 200, pollMs: 1_000 };
  const mounts = [
    await mountClone(bare, path.join(dir, "i0"), sync),
    await mountClone(bare, path.join(dir, "i1"), sync),
    await mountClone(bare, path.join(dir, "i2"), sync),
  ];
  const calls = mounts.map(callOn);
  const samples: number[] = [];
  const acked: number[] = [];
  const writer = async (w: number) => {
    for (let k = 0; k < 2; k++) {
      const from = (w + k) % 3;
      const to = (from + 1) % 3;
      const word = `conv${w}x${k}word`;
      const begun = performance.now();
      await calls[from]?.("concept_write", {
        id: `w${w}-${k}`,
        frontmatter: { type: "note", title: word },
        body: `${word}\n`,
      });
      // From the acknowledgement: the write exists from then on.
      const start = performance.now();
      acked.push(start - begun);
      for (;;) {
        const res = await calls[to]?.("search", { query: word });
        const text = (res?.content[0] as { text?: string } | undefined)?.text ?? "";
        if (text.includes(`w${w}-${k}`)) break;
        if (performance.now() - start > 20_000) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      samples.push(performance.now() - start);
    }
  };
  await Promise.all(Array.from({ length: 8 }, (_, w) => writer(w)));
  for (const m of mounts) await closeMount(m);
  return { ...summarize(samples), writeP50: summarize(acked).p50 };
}

async function incomingPull(ctx: BenchContext, dir: string) {
  const kb = await ctx.kb();
  const bare = path.join(dir, "big.git");
  await git(dir, "clone", "-q", "--bare", kb.root, bare);
  const mount = await mountClone(bare, path.join(dir, "big-b"), { inWindowMs: 0, pollMs: 0 });
  const writer = path.join(dir, "big-a");
  await git(dir, "clone", "-q", bare, writer);
  const changed = kb.concepts.slice(0, 100);
  for (const c of changed) {
    const file = path.join(writer, "data", `${c.id}.md`);
    await fs.appendFile(file, "\nincomingword changed upstream\n");
  }
  await git(writer, "add", "-A");
  await git(writer, "commit", "-q", "-m", "upstream: 100 concepts");
  await git(writer, "push", "-q", "origin", "HEAD");
  const sync = mount.runtime.sync;
  const paths = changed.map((c) => `data/${c.id}.md`);
  // The whole pull (its index update is fed by the diff), then the index update alone again.
  let start = performance.now();
  await mount.store.withLock(() => sync?.syncInLocked(true) ?? Promise.resolve());
  const pullMs = performance.now() - start;
  start = performance.now();
  await reindexPaths(mount.runtime, paths);
  const indexMs = performance.now() - start;
  const found = mount.index.search({
    query: "incomingword",
    limit: 100,
    visibility: { all: true },
  });
  await closeMount(mount);
  return { indexMs, pullMs, found: found.results.length };
}

export async function run(ctx: BenchContext): Promise<Section> {
  const dir = await fs.mkdtemp(path.join(ctx.tmpRoot, "sync-"));
  ctx.log(`sync: ${ROUNDS} writes with a debounced push vs raw git commit && git push`);
  const t = await throughput(await mk(dir, "t"));
  ctx.log("sync: convergence, 3 instances × 8 writers");
  const c = await convergence(await mk(dir, "c"));
  ctx.log("sync: an incoming pull of 100 concepts into the 10,000-concept KB");
  const p = await incomingPull(ctx, await mk(dir, "p"));
  return {
    name: "sync",
    figures: [
      { name: "raw git commit && git push", value: t.raw, unit: "commits/s" },
      {
        name: "concept_write + commit + debounced push",
        value: t.served,
        unit: "writes/s",
        baseline: "raw git commit && git push",
        target: { on: "ratio", op: ">=", value: 0.7 },
      },
      {
        name: "convergence p50 (write on A → search on B), in_window 1 s + poll 1 s",
        value: c.p50,
        unit: "ms",
        target: { on: "value", op: "<=", value: 2_000 },
        note: `from the write's acknowledgement; p95 ${c.p95.toFixed(0)} ms over ${c.n} writes; the write itself p50 ${c.writeP50.toFixed(0)} ms`,
      },
      {
        name: "incoming pull of 100 concepts: index update from the diff (10k KB)",
        value: p.indexMs,
        unit: "ms",
        target: { on: "value", op: "<=", value: 500 },
      },
      {
        name: "incoming pull of 100 concepts: fetch + rebase + index (10k KB)",
        value: p.pullMs,
        unit: "ms",
        note: `search finds ${p.found} of 100 changed concepts after the pull`,
      },
    ],
  };
}

async function mk(dir: string, name: string): Promise<string> {
  const d = path.join(dir, name);
  await fs.mkdir(d, { recursive: true });
  return d;
}
