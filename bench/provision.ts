/**
 * Section `provision` (docs/benchmarks.md "Provisioning"): `cartographer sync` of a KB with 200
 * skills × 5 files to three providers (Claude Code, Codex, OpenCode; user scope, sandbox $HOME)
 * against a real HTTP server in its own process. The sync command runs in-process (no Node start-up
 * in the figure):
 *  - cold: nothing provisioned yet (3,000 files + the MCP entries and instruction blocks);
 *    target ≤ 2 s;
 *  - unchanged: the same sync again, p50 of 5; target ≤ 0.3 s, and no file under $HOME may
 *    change its mtime (checked, printed);
 * beside baselines measured in the same run: fs.cp of the same skill folders to three places
 * (cold), and reading + hashing the provisioned files once (unchanged); and the manifest call
 * alone, full and with `known_revision` (what an unchanged sync asks), with its size.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { sync } from "../src/client/commands/sync.js";
import type { CommandIo } from "../src/client/lib/io.js";
import { openMcpSession } from "../src/client/mcp-session.js";
import { initKb } from "../src/kb/store/init.js";
import type { BenchContext } from "./context.js";
import { type Section, summarize } from "./harness.js";
import { spawnServer } from "./serve-child.js";

const SKILLS = 200;
const FILES_PER_SKILL = 5;
const UNCHANGED_RUNS = 5;

async function makeKb(root: string): Promise<void> {
  await initKb(root, { gitAuthor: { name: "bench", email: "bench@localhost" } });
  const body = "Line of guidance for the agent about this skill and its tools.\n".repeat(16);
  for (let i = 0; i < SKILLS; i++) {
    const name = `skill-${String(i).padStart(3, "0")}`;
    const dir = path.join(root, "skills", name);
    await fs.mkdir(path.join(dir, "scripts"), { recursive: true });
    await fs.writeFile(
      path.join(dir, "SKILL.md"),
      `---\nname: ${name}\ndescription: bench skill ${i}\nversion: "1"\n---\n${body}`,
    );
    await fs.writeFile(path.join(dir, "reference.md"), `# ${name} reference\n${body}`);
    await fs.writeFile(path.join(dir, "examples.md"), `# ${name} examples\n${body}`);
    await fs.writeFile(path.join(dir, "scripts", "run.sh"), `#!/bin/sh\necho ${name}\n`, {
      mode: 0o755,
    });
    await fs.writeFile(path.join(dir, "scripts", "check.py"), `print("${name}")\n`);
  }
}

function quietIo(home: string): CommandIo & { err: () => string } {
  let err = "";
  return {
    home,
    cwd: home,
    env: {},
    stdout: { write: () => true },
    stderr: { write: (c: string) => (err += c) },
    err: () => err,
  };
}

/** path → mtimeMs of every regular file under `dir`. */
async function mtimes(dir: string): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const rel of await fs.readdir(dir, { recursive: true })) {
    const p = path.join(dir, rel);
    const st = await fs.lstat(p);
    if (st.isFile()) out.set(p, st.mtimeMs);
  }
  return out;
}

export async function run(ctx: BenchContext): Promise<Section> {
  const dir = await fs.mkdtemp(path.join(ctx.tmpRoot, "provision-"));
  const kb = path.join(dir, "skillkb");
  ctx.log(`provision: generating ${SKILLS} skills × ${FILES_PER_SKILL} files`);
  await makeKb(kb);
  const server = await spawnServer(kb);
  try {
    const home = path.join(dir, "home");
    await fs.mkdir(home);
    await fs.writeFile(
      path.join(home, ".cartographer.yaml"),
      `server_url: ${server.url}\ntrust: [skillkb]\nproviders:\n  - name: claude\n  - name: codex\n  - name: opencode\n`,
    );
    const io = quietIo(home);
    let start = performance.now();
    const coldExit = await sync(io);
    const coldMs = performance.now() - start;
    if (coldExit !== 0) throw new Error(`cold sync exited ${coldExit}: ${io.err().slice(0, 300)}`);
    const written = [...(await mtimes(home)).keys()].filter((p) => p.includes("skill-")).length;

    const before = await mtimes(home);
    const unchanged: number[] = [];
    for (let i = 0; i < UNCHANGED_RUNS; i++) {
      start = performance.now();
      const exit = await sync(io);
      unchanged.push(performance.now() - start);
      if (exit !== 0) throw new Error(`unchanged sync exited ${exit}: ${io.err().slice(0, 300)}`);
    }
    const after = await mtimes(home);
    const touched = [...before].filter(([p, m]) => after.get(p) !== m).length;

    // Baseline: a raw recursive copy of the same skill folders to three destinations.
    const copyRoot = path.join(dir, "copy");
    start = performance.now();
    for (const dest of ["a", "b", "c"])
      await fs.cp(path.join(kb, "skills"), path.join(copyRoot, dest), { recursive: true });
    const copyMs = performance.now() - start;
    // Baseline for "unchanged": read and hash every provisioned file once, nothing else.
    const provisioned = [...after.keys()].filter((p) => p.includes("skill-"));
    start = performance.now();
    for (const p of provisioned) createHash("sha256").update(readFileSync(p)).digest("hex");
    const hashMs = performance.now() - start;
    // The manifest on the wire: full answer (served from the server's cache) vs known_revision.
    const session = await openMcpSession(`${server.url.replace(/\/$/, "")}/mcp`, {}, fetch);
    let full = "";
    let short = "";
    const fullMs: number[] = [];
    const shortMs: number[] = [];
    try {
      for (let i = 0; i < UNCHANGED_RUNS; i++) {
        start = performance.now();
        full = await session.callTool("artifact_manifest", {});
        fullMs.push(performance.now() - start);
        const revision = (JSON.parse(full) as { revision: string }).revision;
        start = performance.now();
        short = await session.callTool("artifact_manifest", { known_revision: revision });
        shortMs.push(performance.now() - start);
      }
    } finally {
      await session.close();
    }
    const stats = summarize(unchanged);
    return {
      name: "provision",
      figures: [
        { name: "raw fs.cp of the skills to 3 places", value: copyMs, unit: "ms" },
        {
          name: `sync cold: ${SKILLS}×${FILES_PER_SKILL} files → 3 providers (${written} files)`,
          value: coldMs,
          unit: "ms",
          target: { on: "value", op: "<=", value: 2000 },
          baseline: "raw fs.cp of the skills to 3 places",
        },
        { name: `raw read + sha256 of the ${provisioned.length} files`, value: hashMs, unit: "ms" },
        {
          name: `sync unchanged p50 of ${UNCHANGED_RUNS}`,
          value: stats.p50,
          unit: "ms",
          target: { on: "value", op: "<=", value: 300 },
          baseline: `raw read + sha256 of the ${provisioned.length} files`,
          note: `max ${stats.p95.toFixed(0)} ms`,
        },
        {
          name: "artifact_manifest full answer (server cache warm), p50",
          value: summarize(fullMs).p50,
          unit: "ms",
          note: `${full.length} chars of JSON`,
        },
        {
          name: "artifact_manifest with known_revision (unchanged), p50",
          value: summarize(shortMs).p50,
          unit: "ms",
          note: `${short.length} chars of JSON`,
        },
        {
          name: "files whose mtime changed in unchanged syncs",
          value: touched,
          unit: "files",
          target: { on: "value", op: "<=", value: 0 },
          note: `of ${after.size} files under $HOME`,
        },
      ],
    };
  } finally {
    await server.stop();
  }
}
