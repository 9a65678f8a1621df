/**
 * Section `write`: concept write + commit per second through the store (plan → withLock →
 * apply → commit, opened with the server's environment as `serve` opens it) against a raw `git
 * add && git commit` loop on the same repo, interleaved so both see the same machine load.
 */
import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { openKb } from "../src/kb/store/store.js";
import type { BenchContext } from "./context.js";
import { BENCH_GIT_ENV } from "./gen-kb.js";
import type { Section } from "./harness.js";

const exec = promisify(execFile);
const ROUNDS = 20;

export async function run(ctx: BenchContext): Promise<Section> {
  const kb = await ctx.kb();
  // The server's environment, as the CLI passes it: without one every write is `git commit
  // <paths>` (kb/git/path-commit.ts), which is not what a served KB runs.
  const store = await openKb({ ...ctx.settings(kb.root), gitEnv: process.env });
  const map = kb.maps[1] ?? (kb.maps[0] as string);
  const env = { ...process.env, ...BENCH_GIT_ENV };
  const body = (i: number) =>
    `# Bench note ${i}\n\nWritten by the write benchmark, round ${i}. See [[${kb.concepts[i]?.id}]].\n`;

  ctx.log(`write: ${ROUNDS} store writes and ${ROUNDS} raw git commits, interleaved`);
  let rawMs = 0;
  let storeMs = 0;
  for (let i = 0; i < ROUNDS; i++) {
    const rel = `data/${map}/bench/raw-${i}.md`;
    let start = performance.now();
    await fs.mkdir(path.dirname(path.join(kb.root, rel)), { recursive: true });
    await fs.writeFile(
      path.join(kb.root, rel),
      `---\ntype: note\ntitle: Raw ${i}\n---\n${body(i)}`,
    );
    await exec("git", ["add", "--", rel], { cwd: kb.root, env });
    await exec("git", ["commit", "-q", "-m", `raw: ${rel}`], { cwd: kb.root, env });
    rawMs += performance.now() - start;

    start = performance.now();
    const plan = await store.planConceptWrite({
      id: `${map}/bench/store-${i}`,
      frontmatter: { type: "note", title: `Store ${i}` },
      body: body(i),
      mode: "upsert",
    });
    await store.withLock(async () => {
      const applied = await store.apply(plan);
      await store.commit(applied.paths, `concept_write: ${plan.target}`);
    });
    storeMs += performance.now() - start;
  }
  return {
    name: "write",
    figures: [
      { name: "raw git add && git commit", value: ROUNDS / (rawMs / 1000), unit: "commits/s" },
      {
        name: "concept write + commit (store)",
        value: ROUNDS / (storeMs / 1000),
        unit: "writes/s",
        baseline: "raw git add && git commit",
        target: { on: "ratio", op: ">=", value: 0.7 },
      },
    ],
  };
}
