/**
 * A served process for the startup and scale sections: spawn (the built binary or the bare SDK
 * server), time the initialize answer from spawn, watch stderr for "index of KB ... ready"
 * lines, read the peak RSS from /proc, stop.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { BIN, cleanEnv, LineClient } from "./stdio.js";

export const BARE_STDIO = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  "bare-stdio-server.mjs",
);

const INIT_PARAMS = {
  protocolVersion: "2025-06-18",
  capabilities: {},
  clientInfo: { name: "bench", version: "1" },
};

export class Served {
  readonly client: LineClient;
  private readyLines = 0;
  private readyWaiters: Array<() => void> = [];
  private readonly exited: Promise<void>;

  private constructor(
    readonly proc: ChildProcess,
    readonly spawnedAt: number,
  ) {
    this.client = new LineClient(proc);
    this.exited = new Promise((resolve) => proc.once("exit", () => resolve()));
    proc.stderr?.on("data", (d) => {
      const n = (String(d).match(/index of KB '[^']*' ready in/g) ?? []).length;
      if (n === 0) return;
      this.readyLines += n;
      for (const wake of this.readyWaiters.splice(0)) wake();
    });
  }

  /** `serve --stdio` with these args (e.g. ["--kb", root]), or the bare SDK server. */
  static start(args: string[] | "bare", cwd: string): Served {
    const argv = args === "bare" ? [BARE_STDIO] : [BIN, "serve", "--stdio", ...args];
    const spawnedAt = performance.now();
    const proc = spawn(process.execPath, argv, {
      cwd,
      env: cleanEnv(),
      stdio: ["pipe", "pipe", "pipe"],
    });
    return new Served(proc, spawnedAt);
  }

  /** ms from spawn to the initialize answer. */
  async initialize(timeoutMs = 120_000): Promise<number> {
    const m = await this.client.request("initialize", INIT_PARAMS, timeoutMs);
    if (!m.result) throw new Error(`initialize failed: ${JSON.stringify(m.error)}`);
    const ms = performance.now() - this.spawnedAt;
    this.client.notify("notifications/initialized");
    return ms;
  }

  /** Calls a tool; returns the parsed JSON text of the result. */
  async call(name: string, args: unknown, timeoutMs = 120_000): Promise<Record<string, unknown>> {
    const m = await this.client.request("tools/call", { name, arguments: args }, timeoutMs);
    const text = m.result?.content?.[0]?.text ?? "";
    if (m.error || m.result?.isError) throw new Error(`${name}: ${m.error?.message ?? text}`);
    return JSON.parse(text) as Record<string, unknown>;
  }

  /** Resolves (ms since spawn) once `count` KBs have logged their index ready. */
  async indexesReady(count: number, timeoutMs = 600_000): Promise<number> {
    const deadline = performance.now() + timeoutMs;
    while (this.readyLines < count) {
      if (performance.now() > deadline)
        throw new Error(`only ${this.readyLines} of ${count} indexes ready after ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        this.readyWaiters.push(resolve);
        setTimeout(resolve, 1000);
      });
    }
    return performance.now() - this.spawnedAt;
  }

  /** Peak resident set size of the child (VmHWM), MB. */
  peakRssMb(): number {
    const status = readFileSync(`/proc/${this.proc.pid}/status`, "utf8");
    const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN);
    return kb / 1024;
  }

  /**
   * CPU time the child has used so far (user + system, all its threads), seconds: beside a wall
   * time it tells how much of a core the child got (shared machines).
   */
  cpuSeconds(): number {
    const stat = readFileSync(`/proc/${this.proc.pid}/stat`, "utf8");
    // Fields after the parenthesised command name; utime and stime are the 12th and 13th.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100; // clock ticks (USER_HZ = 100)
  }

  async stop(): Promise<void> {
    this.proc.stdin?.end();
    const timer = setTimeout(() => this.proc.kill("SIGKILL"), 15_000);
    await this.exited;
    clearTimeout(timer);
  }
}

/** Median of `runs` measurements (each its own process). */
export async function median(runs: number, measure: () => Promise<number>): Promise<number> {
  const values: number[] = [];
  for (let i = 0; i < runs; i++) values.push(await measure());
  values.sort((a, b) => a - b);
  return values[Math.floor(values.length / 2)] as number;
}
