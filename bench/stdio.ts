/**
 * Section `stdio`: tools/call latency p50/p95 over stdio for concept_read and search on the
 * 10,000-concept KB, against the BUILT binary (`node dist/cli/main.js serve --stdio --kb`,
 * `npm run bench` builds first), one newline-delimited JSON-RPC request at a time, once the
 * index is built (a fresh KB builds it in the background).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { BenchContext } from "./context.js";
import { type Figure, type Section, summarize } from "./harness.js";

export const BIN = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  "..",
  "dist",
  "cli",
  "main.js",
);
/** The baseline: a bare SDK server (McpServer + StdioServerTransport, one echo tool). */
const BARE = path.join(path.dirname(fileURLToPath(import.meta.url)), "bare-stdio-server.mjs");
const CALLS = 500;
const WARMUP = 50;
const STARTUP_TIMEOUT_MS = 120_000;
const QUERIES = [
  "gateway",
  "backup restore",
  "firmware upgrade",
  "resolver",
  "latency alert",
  "vpn",
];

interface RpcAnswer {
  id?: number;
  result?: { isError?: boolean; content?: Array<{ text?: string }> };
  error?: { message?: string };
}

/** A child speaking line-delimited JSON-RPC, one request in flight at a time. */
export class LineClient {
  private buffer = "";
  private waiting: ((m: RpcAnswer) => void) | null = null;
  private nextId = 0;
  stderr = "";

  constructor(private readonly proc: ChildProcess) {
    proc.stdout?.setEncoding("utf8");
    proc.stdout?.on("data", (chunk: string) => {
      this.buffer += chunk;
      let nl = this.buffer.indexOf("\n");
      while (nl !== -1) {
        const line = this.buffer.slice(0, nl);
        this.buffer = this.buffer.slice(nl + 1);
        const m = JSON.parse(line) as RpcAnswer;
        // Only answers to our requests resolve the waiter (ignore server notifications).
        if (m.id !== undefined && this.waiting) this.waiting(m);
        nl = this.buffer.indexOf("\n");
      }
    });
    proc.stderr?.on("data", (d) => {
      this.stderr += String(d);
    });
  }

  request(method: string, params: unknown, timeoutMs = 30_000): Promise<RpcAnswer> {
    const id = ++this.nextId;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`${method} timed out; stderr:\n${this.stderr.slice(-2000)}`)),
        timeoutMs,
      );
      this.waiting = (m) => {
        if (m.id !== id) return;
        clearTimeout(timer);
        this.waiting = null;
        resolve(m);
      };
      this.proc.stdin?.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
    });
  }

  notify(method: string): void {
    this.proc.stdin?.write(`${JSON.stringify({ jsonrpc: "2.0", method })}\n`);
  }
}

/** The environment without CARTOGRAPHER_* settings, so only the flags configure the server. */
export function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith("CARTOGRAPHER_")),
  );
}

async function timeCalls(client: LineClient, tool: string, argsOf: (i: number) => unknown) {
  const samples: number[] = [];
  for (let i = 0; i < WARMUP + CALLS; i++) {
    const start = performance.now();
    const m = await client.request("tools/call", { name: tool, arguments: argsOf(i) });
    const ms = performance.now() - start;
    if (m.error || m.result?.isError)
      throw new Error(`${tool}: ${m.error?.message ?? m.result?.content?.[0]?.text ?? "error"}`);
    if (i >= WARMUP) samples.push(ms);
  }
  return summarize(samples);
}

/** ms since `started` once a search answers with no `index` field (the build is done). */
async function untilIndexed(client: LineClient, started = performance.now()): Promise<number> {
  for (;;) {
    const m = await client.request("tools/call", { name: "search", arguments: { query: "x" } });
    const text = m.result?.content?.[0]?.text ?? "";
    if (m.error || m.result?.isError) throw new Error(`search: ${m.error?.message ?? text}`);
    if ((JSON.parse(text) as { index?: unknown }).index === undefined)
      return performance.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** p50/p95 of the bare SDK server's echo tool over stdio: the pipe and SDK round trip alone. */
async function bareEcho(cwd: string) {
  const proc = spawn(process.execPath, [BARE], { cwd, env: cleanEnv(), stdio: "pipe" });
  const exited = new Promise<void>((resolve) => proc.once("exit", () => resolve()));
  const client = new LineClient(proc);
  try {
    await client.request("initialize", {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "bench", version: "1" },
    });
    client.notify("notifications/initialized");
    return await timeCalls(client, "echo", () => ({ text: "x" }));
  } finally {
    proc.stdin?.end();
    await exited;
  }
}

export async function run(ctx: BenchContext): Promise<Section> {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run npm run build first`);
  const kb = await ctx.kb();
  ctx.log("stdio: bare SDK server echo (baseline)");
  const bare = await bareEcho(ctx.tmpRoot);
  ctx.log("stdio: starting the built server");
  const proc = spawn(process.execPath, [BIN, "serve", "--stdio", "--kb", kb.root], {
    cwd: ctx.tmpRoot,
    env: cleanEnv(),
    stdio: ["pipe", "pipe", "pipe"],
  });
  const exited = new Promise<void>((resolve) => proc.once("exit", () => resolve()));
  const client = new LineClient(proc);
  const figures: Figure[] = [];
  try {
    const started = performance.now();
    const init = await client.request(
      "initialize",
      {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "bench", version: "1" },
      },
      STARTUP_TIMEOUT_MS,
    );
    if (!init.result) throw new Error(`initialize failed: ${JSON.stringify(init.error)}`);
    const startupMs = performance.now() - started;
    client.notify("notifications/initialized");
    // Steady state: the index of a fresh KB builds in the background; calls timed
    // during the build would measure the build, not the call path.
    const readyMs = await untilIndexed(client, started);
    ctx.log(`stdio: ${WARMUP} + ${CALLS} calls each of concept_read and search`);
    const ids = kb.concepts.map((c) => c.id);
    const step = Math.floor(ids.length / CALLS) || 1;
    const read = await timeCalls(client, "concept_read", (i) => ({
      id: ids[(i * step) % ids.length],
    }));
    const find = await timeCalls(client, "search", (i) => ({ query: QUERIES[i % QUERIES.length] }));
    figures.push(
      { name: "stdio bare SDK echo p50", value: bare.p50, unit: "ms" },
      {
        name: "stdio concept_read p50",
        value: read.p50,
        unit: "ms",
        baseline: "stdio bare SDK echo p50",
      },
      { name: "stdio concept_read p95", value: read.p95, unit: "ms" },
      {
        name: "stdio search p50",
        value: find.p50,
        unit: "ms",
        baseline: "stdio bare SDK echo p50",
        target: { on: "value", op: "<=", value: 2 },
      },
      { name: "stdio search p95", value: find.p95, unit: "ms" },
      {
        name: "stdio startup to initialize answer",
        value: startupMs,
        unit: "ms",
        note: "the index builds in the background (a full build if no earlier section built it)",
      },
      {
        name: "stdio startup to index ready",
        value: readyMs,
        unit: "ms",
        note: "a search answered without an index field; the calls above were timed after it",
      },
    );
  } finally {
    proc.stdin?.end();
    const timer = setTimeout(() => proc.kill("SIGKILL"), 10_000);
    await exited;
    clearTimeout(timer);
  }
  return { name: "stdio", figures };
}
