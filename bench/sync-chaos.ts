/**
 * The sync chaos run (docs/sync.md "Several instances"): N `cartographer serve` processes (the BUILT binary) on N
 * clones of one bare repository, W writers each through the SDK client over HTTP, every 4th
 * write to one of 3 shared concepts, SIGKILLs at random moments with restarts, the remote
 * unreachable for a while (renamed away), and a resolver that answers registered conflicts with
 * git_conflict_resolve as an agent would. After the load: the remote comes back, the resolver
 * resolves what is left, and the run waits until every instance is clean at the remote's head.
 *
 * What it checks (runChaos returns it; the e2e test asserts it, `npm run bench -- sync-chaos`
 * reports it): every acknowledged write is on the remote (its unique token is added by a commit
 * of the remote's main; a resolved conflict merges the local commits, so theirs are there too),
 * every instance's concept_list has every acknowledged concept, and no instance is wedged.
 *
 * Used by test/e2e/sync-chaos.test.ts (short) and the `sync-chaos` bench section (long).
 */
import { type ChildProcess, execFile, execFileSync, spawn } from "node:child_process";
import fs from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { initKb } from "../src/kb/store/init.js";
import type { BenchContext } from "./context.js";
import type { Section } from "./harness.js";
import { BIN } from "./stdio.js";

const execFileP = promisify(execFile);

export interface ChaosOptions {
  /** An empty directory the run owns (the caller removes it). */
  dir: string;
  instances: number;
  /** Concurrent writers per instance. */
  writers: number;
  /** How long the writers write. */
  loadMs: number;
  /** SIGKILLs during the load, at random moments (each followed by a restart). */
  kills: number;
  /** The remote is unreachable this long, once, from about a third of the load. */
  outageMs: number;
  /** The resolver's period during the load. */
  resolveEveryMs: number;
  /** Longest wait for convergence after the load. */
  convergeMs: number;
  seed?: number;
  log?: (message: string) => void;
}

export interface ChaosReport {
  acked: number;
  /** Acknowledged writes to the shared concepts. */
  ackedShared: number;
  /** Acknowledged writes whose token a commit of the remote's main adds. */
  onRemote: number;
  /** Acknowledged writes missing from the remote (must be empty). */
  missing: string[];
  /** Writes answered `conflict` (not acknowledged: the caller was told). */
  refusedConflict: number;
  /** Writes that failed otherwise (in flight at a kill, a timeout): not acknowledged. */
  failed: number;
  /** How they failed: message (first 80 characters) → count. */
  failures: Record<string, number>;
  /** concept_write latency over every answered or failed call: p50 and max, ms. */
  writeMs: { p50: number; max: number };
  /** Conflict entries resolved through git_conflict_resolve, and the merge commits it made. */
  resolvedConflicts: number;
  resolutionMerges: number;
  /** Conflict entries the finalizing merge found and registered (answered as open). */
  registeredAtFinalize: number;
  kills: number;
  /** Acknowledged concepts some instance's concept_list lacks (must be empty). */
  listMissing: string[];
  /** Instances not clean at the remote's head after the convergence period (must be empty). */
  wedged: string[];
  convergedMs: number;
  loadAverage: { start: number; end: number; max: number };
  durationMs: number;
}

interface Node {
  name: string;
  root: string;
  proc: ChildProcess;
  client: Client;
  up: boolean;
  stderr: string[];
}

interface Acked {
  id: string;
  token: string;
  node: string;
}

const SHARED = ["chaos/shared-0", "chaos/shared-1", "chaos/shared-2"];
const CALL_TIMEOUT_MS = 30_000;

/** A small deterministic PRNG (mulberry32), so a failing run can be replayed by its seed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });

function serverEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith("CARTOGRAPHER_")) env[k] = v;
  return {
    ...env,
    CARTOGRAPHER_SYNC_IN_WINDOW: "1",
    CARTOGRAPHER_SYNC_OUT_DEBOUNCE: "200ms",
    CARTOGRAPHER_GIT_POLL_SECONDS: "1",
    CARTOGRAPHER_INDEX_REFRESH_SECONDS: "0",
  };
}

/** Starts `cartographer serve --http 127.0.0.1:0 --kb root`; resolves once it listens. */
async function startNode(name: string, root: string, cwd: string): Promise<Node> {
  const proc = spawn(process.execPath, [BIN, "serve", "--http", "127.0.0.1:0", "--kb", root], {
    cwd,
    env: serverEnv(),
    stdio: ["ignore", "pipe", "pipe"],
  });
  const stderr: string[] = [];
  let out = "";
  const keep = (d: Buffer) => {
    out += d;
    stderr.push(String(d));
    if (stderr.length > 400) stderr.splice(0, stderr.length - 400);
  };
  proc.stdout?.on("data", keep);
  proc.stderr?.on("data", keep);
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start:\n${out}`)), 60_000);
    const check = () => {
      const m = /listening on (http:\/\/[^\s]+)/.exec(out);
      if (!m) return;
      clearTimeout(timer);
      resolve((m[1] as string).replace(/\/$/, ""));
    };
    proc.stdout?.on("data", check);
    proc.stderr?.on("data", check);
    proc.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with ${code} before listening:\n${out}`));
    });
  });
  const client = new Client({ name: `chaos-${name}`, version: "1" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
  const node: Node = { name, root, proc, client, up: true, stderr };
  proc.once("exit", () => {
    node.up = false;
  });
  return node;
}

async function stopNode(node: Node, signal: NodeJS.Signals): Promise<void> {
  const exited = new Promise<void>((r) => {
    if (node.proc.exitCode !== null || node.proc.signalCode !== null) r();
    else node.proc.once("exit", () => r());
  });
  node.up = false;
  node.proc.kill(signal);
  await exited;
  await node.client.close().catch(() => {});
}

type Answer = { ok: true; result: CallToolResult } | { ok: false; error: string };

async function call(node: Node, name: string, args: Record<string, unknown>): Promise<Answer> {
  if (!node.up) return { ok: false, error: "down" };
  try {
    const result = (await node.client.callTool({ name, arguments: args }, undefined, {
      timeout: CALL_TIMEOUT_MS,
    })) as CallToolResult;
    return { ok: true, result };
  } catch (err) {
    return { ok: false, error: err instanceof Error ? err.message : String(err) };
  }
}

const textOf = (r: CallToolResult) => (r.content[0] as { text?: string } | undefined)?.text ?? "";
function jsonOf(r: CallToolResult): Record<string, unknown> {
  try {
    return JSON.parse(textOf(r)) as Record<string, unknown>;
  } catch {
    return {};
  }
}

/** A free loopback port (the daemon is restarted on the same one after the outage). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/**
 * `git daemon` serving the bare repository on 127.0.0.1:`port` (pushes enabled). The outage
 * stops it: new connections are refused, as with a remote that is down, while a push already
 * under way finishes in its own process. (Renaming the repository away instead strands a push
 * between taking and committing its ref lock: a stale HEAD.lock no real remote leaves.)
 */
async function startDaemon(base: string, port: number): Promise<ChildProcess> {
  const proc = spawn(
    "git",
    [
      "daemon",
      "--reuseaddr",
      "--export-all",
      "--enable=receive-pack",
      `--base-path=${base}`,
      "--listen=127.0.0.1",
      `--port=${port}`,
      base,
    ],
    { stdio: "ignore" },
  );
  for (let i = 0; i < 100; i++) {
    const up = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, "127.0.0.1", () => {
        socket.end();
        resolve(true);
      });
      socket.once("error", () => resolve(false));
    });
    if (up) return proc;
    await sleep(100);
  }
  proc.kill("SIGTERM");
  throw new Error(`git daemon did not listen on 127.0.0.1:${port}`);
}

async function stopDaemon(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise<void>((r) => proc.once("exit", () => r()));
  proc.kill("SIGTERM");
  await exited;
}

async function seedRemote(dir: string): Promise<string> {
  const bare = path.join(dir, "remote.git");
  const seed = path.join(dir, "seed");
  git(dir, "init", "-q", "--bare", "-b", "main", bare);
  await initKb(seed, { gitAuthor: { name: "chaos", email: "chaos@localhost" } });
  git(seed, "branch", "-M", "main");
  git(seed, "remote", "add", "origin", bare);
  git(seed, "push", "-q", "origin", "main");
  return bare;
}

export async function runChaos(opts: ChaosOptions): Promise<ChaosReport> {
  const procs: ChildProcess[] = [];
  try {
    return await chaos(opts, procs);
  } finally {
    // A run that threw leaves nothing behind: servers and the daemon still alive are killed.
    for (const p of procs) if (p.exitCode === null && p.signalCode === null) p.kill("SIGKILL");
  }
}

async function chaos(opts: ChaosOptions, procs: ChildProcess[]): Promise<ChaosReport> {
  const log = opts.log ?? (() => {});
  const random = prng(opts.seed ?? Date.now());
  const started = performance.now();
  const load = { start: os.loadavg()[0] as number, end: 0, max: os.loadavg()[0] as number };
  const sampler = setInterval(() => {
    load.max = Math.max(load.max, os.loadavg()[0] as number);
  }, 1_000);
  const bare = await seedRemote(opts.dir);
  const port = await freePort();
  let daemon = await startDaemon(opts.dir, port);
  procs.push(daemon);
  const url = `git://127.0.0.1:${port}/${path.basename(bare)}`;
  const nodes: Node[] = [];
  const names = Array.from({ length: opts.instances }, (_, i) => String.fromCharCode(97 + i));
  for (const name of names) {
    const root = path.join(opts.dir, name);
    git(opts.dir, "clone", "-q", url, root);
    git(root, "config", "user.name", `instance ${name}`);
    git(root, "config", "user.email", `${name}@chaos.invalid`);
  }
  nodes.push(
    ...(await Promise.all(names.map((n) => startNode(n, path.join(opts.dir, n), opts.dir)))),
  );
  for (const n of nodes) procs.push(n.proc);
  const first = nodes[0] as Node;
  const setup = await call(first, "map_create", { name: "chaos", kind: "map" });
  if (!setup.ok || setup.result.isError)
    throw new Error(`map_create failed: ${JSON.stringify(setup)}`);
  for (const id of SHARED)
    await call(first, "concept_write", {
      id,
      frontmatter: { type: "note", title: id },
      body: "base\n",
    });

  log(
    `${nodes.length} servers up, seeded, at ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  const acked: Acked[] = [];
  const counts = {
    refusedConflict: 0,
    failed: 0,
    resolved: 0,
    merges: 0,
    registeredAtFinalize: 0,
    kills: 0,
  };
  const failures: Record<string, number> = {};
  const latencies: number[] = [];
  const loadEnd = performance.now() + opts.loadMs;
  const loading = () => performance.now() < loadEnd;

  const writer = async (slot: number, w: number) => {
    for (let k = 0; loading(); k++) {
      const node = nodes[slot] as Node;
      if (!node.up) {
        await sleep(100); // killed: its restart takes a moment (nothing was sent)
        k--;
        continue;
      }
      // Every 4th write of each writer, the writers out of phase (shared writes from the start).
      const shared = (k + w) % 4 === 3;
      const id = shared
        ? (SHARED[Math.floor(random() * SHARED.length)] as string)
        : `chaos/${node.name}-${w}-${k}`;
      const token = `tok${node.name}w${w}k${k}r${Math.floor(random() * 1e9)}`;
      const sent = performance.now();
      const answer = await call(node, "concept_write", {
        id,
        frontmatter: { type: "note", title: id },
        body: `${token}\n`,
      });
      latencies.push(performance.now() - sent);
      if (answer.ok && !answer.result.isError) acked.push({ id, token, node: node.name });
      else if (answer.ok && textOf(answer.result).startsWith("conflict:")) counts.refusedConflict++;
      else {
        counts.failed++;
        const why = (answer.ok ? textOf(answer.result) : answer.error).slice(0, 80);
        failures[why] = (failures[why] ?? 0) + 1;
      }
    }
  };

  /** Resolves every open conflict of `node` (alternating ours / theirs / edit). */
  let turn = 0;
  const resolveAll = async (node: Node) => {
    for (let round = 0; round < 5; round++) {
      const listed = await call(node, "conflicts_list", {});
      if (!listed.ok) return;
      const entries = (jsonOf(listed.result).conflicts ?? []) as {
        concept_id: string;
        resolved: boolean;
      }[];
      if (entries.length === 0) return;
      // All resolved but still listed: a finalize a kill interrupted; resolving one again
      // finalizes.
      const open = entries.filter((e) => !e.resolved);
      for (const e of open.length > 0 ? open : entries.slice(0, 1)) {
        // A file that is not a concept (its id is its path) takes the remote's side.
        const strategy = e.concept_id.endsWith(".md")
          ? "theirs"
          : (["theirs", "ours", "edit"] as const)[turn++ % 3];
        const answer = await call(node, "git_conflict_resolve", {
          id: e.concept_id,
          strategy,
          ...(strategy === "edit"
            ? { body: `---\ntype: note\ntitle: ${e.concept_id}\n---\nmerged by the resolver\n` }
            : {}),
        });
        if (!answer.ok || answer.result.isError) continue;
        counts.resolved++;
        const out = jsonOf(answer.result);
        if (typeof out.commit === "string") counts.merges++;
        counts.registeredAtFinalize += ((out.new_conflicts as unknown[]) ?? []).length;
      }
    }
  };

  const resolver = async () => {
    while (loading()) {
      await sleep(Math.min(opts.resolveEveryMs, Math.max(0, loadEnd - performance.now())));
      for (const node of nodes) await resolveAll(node);
    }
  };

  const killer = async () => {
    const moments = Array.from(
      { length: opts.kills },
      () => opts.loadMs * (0.1 + 0.75 * random()),
    ).sort((a, b) => a - b);
    const begun = performance.now();
    for (const at of moments) {
      await sleep(Math.max(0, begun + at - performance.now()));
      const slot = Math.floor(random() * nodes.length);
      const node = nodes[slot] as Node;
      if (!node.up) continue;
      log(`SIGKILL ${node.name} at ${((performance.now() - started) / 1000).toFixed(1)} s`);
      await stopNode(node, "SIGKILL");
      counts.kills++;
      await sleep(200 + random() * 600);
      nodes[slot] = await startNode(node.name, node.root, opts.dir);
      procs.push((nodes[slot] as Node).proc);
    }
  };

  const outage = async () => {
    if (opts.outageMs <= 0) return;
    await sleep(opts.loadMs / 3);
    log(`remote unreachable for ${opts.outageMs} ms`);
    await stopDaemon(daemon);
    await sleep(opts.outageMs);
    daemon = await startDaemon(opts.dir, port);
    procs.push(daemon);
    log("remote back");
  };

  const writers = nodes.flatMap((_, slot) =>
    Array.from({ length: opts.writers }, (_, w) => writer(slot, w)),
  );
  await Promise.all([...writers, resolver(), killer(), outage()]);
  log(
    `load done: ${acked.length} acked, ${counts.refusedConflict} refused (conflict), ${counts.failed} failed ${JSON.stringify(failures)}`,
  );

  // Convergence: resolve what is left, flush, until every instance is clean at the remote head.
  const convergeStart = performance.now();
  let wedged: string[] = names;
  while (performance.now() - convergeStart < opts.convergeMs) {
    for (const node of nodes) await resolveAll(node);
    const head = git(bare, "rev-parse", "main").trim();
    wedged = [];
    for (const node of nodes) {
      const status = await call(node, "sync_status", {});
      const s = status.ok ? jsonOf(status.result) : {};
      const clean = s.state === "clean" && s.conflicts === 0 && s.unpushed === 0 && s.head === head;
      if (!clean) wedged.push(`${node.name}: ${JSON.stringify(s)}`);
    }
    if (wedged.length === 0) break;
    await sleep(500);
  }
  const convergedMs = performance.now() - convergeStart;

  // Every acked token must be added by a commit of the remote's main.
  const history = (
    await execFileP("git", ["log", "-p", "--no-color", "--format=%H", "main"], {
      cwd: bare,
      maxBuffer: 1024 * 1024 * 1024,
    })
  ).stdout;
  const added = new Set<string>();
  for (const line of history.split("\n")) if (line.startsWith("+tok")) added.add(line.slice(1));
  const missing = acked
    .filter((a) => !added.has(a.token))
    .map((a) => `${a.node}:${a.id}:${a.token}`);

  // Every acked concept in every instance's concept_list.
  const listMissing: string[] = [];
  const ids = [...new Set(acked.map((a) => a.id))];
  for (const node of nodes) {
    let listed: Answer | null = null;
    for (let i = 0; i < 10; i++) {
      listed = await call(node, "concept_list", { prefix: "chaos/", limit: 5000 });
      if (listed.ok && !listed.result.isError) break;
      await sleep(300); // `busy`: another pass holds the slot
    }
    const items =
      listed?.ok && !listed.result.isError
        ? ((jsonOf(listed.result).items ?? []) as { id: string }[])
        : [];
    const have = new Set(items.map((i) => i.id));
    for (const id of ids) if (!have.has(id)) listMissing.push(`${node.name}:${id}`);
  }
  if (missing.length > 0 || wedged.length > 0 || listMissing.length > 0)
    for (const node of nodes) log(`${node.name} stderr tail:\n${node.stderr.slice(-40).join("")}`);

  for (const node of nodes) await stopNode(node, "SIGTERM");
  await stopDaemon(daemon);
  clearInterval(sampler);
  load.end = os.loadavg()[0] as number;
  load.max = Math.max(load.max, load.end);
  return {
    acked: acked.length,
    ackedShared: acked.filter((a) => SHARED.includes(a.id)).length,
    onRemote: acked.length - missing.length,
    missing,
    refusedConflict: counts.refusedConflict,
    failed: counts.failed,
    failures,
    writeMs: {
      p50: [...latencies].sort((a, b) => a - b)[Math.floor(latencies.length / 2)] ?? 0,
      max: Math.max(0, ...latencies),
    },
    resolvedConflicts: counts.resolved,
    resolutionMerges: counts.merges,
    registeredAtFinalize: counts.registeredAtFinalize,
    kills: counts.kills,
    listMissing,
    wedged,
    convergedMs,
    loadAverage: load,
    durationMs: performance.now() - started,
  };
}

/** Section `sync-chaos`: the long run (3 × 8 writers, ≥ 45 s, 5 SIGKILLs, a 10 s outage). */
export async function run(ctx: BenchContext): Promise<Section> {
  const dir = await fs.mkdtemp(path.join(ctx.tmpRoot, "sync-chaos-"));
  ctx.log("sync-chaos: 3 instances × 8 writers, 45 s, 5 SIGKILLs, remote away 10 s");
  const r = await runChaos({
    dir,
    instances: 3,
    writers: 8,
    loadMs: 45_000,
    kills: 5,
    outageMs: 10_000,
    resolveEveryMs: 3_000,
    convergeMs: 90_000,
    log: (m) => ctx.log(`sync-chaos: ${m}`),
  });
  const la = `load average ${r.loadAverage.start.toFixed(1)} → ${r.loadAverage.end.toFixed(1)} (max ${r.loadAverage.max.toFixed(1)})`;
  return {
    name: "sync-chaos",
    figures: [
      {
        name: "acknowledged writes",
        value: r.acked,
        unit: "writes",
        note: `${r.ackedShared} to the 3 shared concepts; ${la}`,
      },
      {
        name: "acknowledged writes on the remote",
        value: r.onRemote,
        unit: "writes",
        baseline: "acknowledged writes",
        target: { on: "ratio", op: ">=", value: 1 },
        note: r.missing.slice(0, 3).join(" ") || "none missing",
      },
      {
        name: "conflicts resolved through git_conflict_resolve",
        value: r.resolvedConflicts,
        unit: "entries",
        note: `${r.resolutionMerges} merge commits; ${r.registeredAtFinalize} registered by a finalizing merge`,
      },
      {
        name: "concept_write latency p50 (24 writers on 3 instances)",
        value: r.writeMs.p50,
        unit: "ms",
        note: `max ${r.writeMs.max.toFixed(0)} ms`,
      },
      { name: "writes answered conflict (not acked)", value: r.refusedConflict, unit: "writes" },
      {
        name: "writes failed by a kill or the outage (not acked)",
        value: r.failed,
        unit: "writes",
      },
      { name: "SIGKILLs with restart", value: r.kills, unit: "kills" },
      {
        name: "acked concepts missing from some concept_list",
        value: r.listMissing.length,
        unit: "ids",
        target: { on: "value", op: "<=", value: 0 },
      },
      {
        name: "instances wedged after convergence",
        value: r.wedged.length,
        unit: "instances",
        target: { on: "value", op: "<=", value: 0 },
        note: r.wedged.join(" ").slice(0, 300) || undefined,
      },
      { name: "convergence after the load", value: r.convergedMs, unit: "ms" },
    ],
  };
}
