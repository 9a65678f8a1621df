/**
 * Section `import-10k` (docs/benchmarks.md "Import"): `cartographer import` of a generated
 * 10,000-note vault (20 nested folders, 3 wiki links and a tag per note, an embedded image in
 * every 50th) into a fresh KB folder, in-process (no Node start-up in the figure): the dry run
 * (walk, plan, existence checks) and the real import (one commit per chunk of 50), with the
 * commits it made; beside the baseline of copying the same files into a KB and committing
 * them once with git.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import { PassThrough } from "node:stream";
import { importCommand } from "../src/cli/commands/import.js";
import type { CliIo } from "../src/cli/io.js";
import { initKb } from "../src/kb/store/init.js";
import type { BenchContext } from "./context.js";
import type { Section } from "./harness.js";

const NOTES = 10_000;
const FOLDERS = 20;
const IMAGE_EVERY = 50;
const AUTHOR = { name: "bench", email: "bench@localhost" };
const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: AUTHOR.name,
  GIT_AUTHOR_EMAIL: AUTHOR.email,
  GIT_COMMITTER_NAME: AUTHOR.name,
  GIT_COMMITTER_EMAIL: AUTHOR.email,
};

const noteName = (i: number) => `Note ${String(i).padStart(5, "0")}`;
const folderOf = (i: number) => `Area ${String(i % FOLDERS).padStart(2, "0")}/Topic ${i % 3}`;

async function makeVault(root: string): Promise<void> {
  const image = Buffer.alloc(2048, 7);
  await fs.mkdir(path.join(root, "attachments"), { recursive: true });
  for (let i = 0; i < NOTES; i++) {
    const dir = path.join(root, folderOf(i));
    await fs.mkdir(dir, { recursive: true });
    const links = [1, 7, 31].map((d) => `[[${noteName((i + d) % NOTES)}]]`).join(", ");
    const embed = i % IMAGE_EVERY === 0 ? `\n![[image ${i}.png]]\n` : "";
    if (embed) await fs.writeFile(path.join(root, "attachments", `image ${i}.png`), image);
    await fs.writeFile(
      path.join(dir, `${noteName(i)}.md`),
      `# ${noteName(i)}\nSee ${links}. #topic-${i % 7}\n${embed}\n${"Body text of the note. ".repeat(20)}\n`,
    );
  }
}

function quietIo(cwd: string): CliIo {
  return {
    env: {},
    cwd,
    stdout: new PassThrough().resume(),
    stderr: new PassThrough().resume(),
    stdin: new PassThrough(),
  };
}

const commits = (root: string) =>
  Number(execFileSync("git", ["rev-list", "--count", "HEAD"], { cwd: root }).toString().trim());

export async function run(ctx: BenchContext): Promise<Section> {
  const base = path.join(ctx.tmpRoot, "import");
  const vault = path.join(base, "vault");
  ctx.log(`generating a ${NOTES}-note vault under ${vault}`);
  await makeVault(vault);

  const raw = path.join(base, "raw");
  await initKb(raw, { gitAuthor: AUTHOR });
  let t = performance.now();
  await fs.cp(vault, path.join(raw, "data", "notes"), { recursive: true });
  execFileSync("git", ["add", "-A"], { cwd: raw, env: GIT_ENV });
  execFileSync("git", ["commit", "-q", "-m", "raw"], { cwd: raw, env: GIT_ENV });
  const rawMs = performance.now() - t;

  const kb = path.join(base, "kb");
  await initKb(kb, { gitAuthor: AUTHOR });
  const flags = { source: vault, kb, defaultMap: "notes" };
  t = performance.now();
  const dryCode = await importCommand(quietIo(base), { ...flags, dryRun: true });
  const dryMs = performance.now() - t;
  const before = commits(kb);
  t = performance.now();
  const code = await importCommand(quietIo(base), flags);
  const importMs = performance.now() - t;
  const made = commits(kb) - before;
  const pending = [dryCode, code].some((c) => c !== 0) ? [`import exited ${dryCode}/${code}`] : [];
  return {
    name: "import-10k",
    figures: [
      {
        name: `raw cp of the vault + one git commit (${NOTES} notes)`,
        value: rawMs / 1000,
        unit: "s",
      },
      { name: "import --dry-run (walk, plan, existence checks)", value: dryMs / 1000, unit: "s" },
      {
        name: `import ${NOTES} notes + ${NOTES / IMAGE_EVERY} images into a KB folder`,
        value: importMs / 1000,
        unit: "s",
        baseline: `raw cp of the vault + one git commit (${NOTES} notes)`,
        note: `${made} commits (1 per chunk of 50, 1 for the map)`,
      },
      { name: "commits made by the import", value: made, unit: "commits" },
    ],
    pending,
  };
}
