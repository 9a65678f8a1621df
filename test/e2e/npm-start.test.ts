/**
 * The README's way to stop the server works: `npm start`, then SIGTERM to npm, and the server
 * is gone — npm 11 passes the signal to the `sh -c` it runs the script in, which dies without
 * passing it on, so the server used to run on under PID 1 (docs/decisions.md, "npm start stops
 * with npm"). A real `npm start` of this package (the built dist/), HTTP on 127.0.0.1.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { cleanEnv, tempDir } from "./helpers.js";

const ROOT = resolve(import.meta.dirname, "../..");

/** PIDs whose parent chain reaches `pid` (Linux /proc; empty elsewhere). */
function descendants(pid: number): number[] {
  let entries: string[];
  try {
    entries = readdirSync("/proc").filter((e) => /^\d+$/.test(e));
  } catch {
    return [];
  }
  const parentOf = new Map<number, number>();
  for (const e of entries) {
    try {
      // Field 4 of /proc/<pid>/stat, after the parenthesized command name.
      const stat = readFileSync(`/proc/${e}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      parentOf.set(Number(e), Number(fields[1]));
    } catch {
      // gone meanwhile
    }
  }
  const out: number[] = [];
  for (const child of parentOf.keys()) {
    let p = parentOf.get(child);
    for (let hops = 0; p !== undefined && p > 1 && hops < 16; hops++) {
      if (p === pid) {
        out.push(child);
        break;
      }
      p = parentOf.get(p);
    }
  }
  return out;
}

/** Running: signalable and not a zombie (an exited process nobody reaped yet). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return true;
  }
}

async function healthAnswers(url: string): Promise<boolean> {
  try {
    const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(1_000) });
    await res.body?.cancel();
    return true;
  } catch {
    return false;
  }
}

/** Processes this test started and must not leave behind, whatever happens. */
let started: number[] = [];
afterEach(() => {
  for (const pid of started) if (alive(pid)) process.kill(pid, "SIGKILL");
  started = [];
});

describe("npm start", () => {
  it("SIGTERM to npm stops the server it started", async () => {
    const data = tempDir("carto-npm-start-");
    let npm: ChildProcess | undefined;
    try {
      npm = spawn("npm", ["start"], {
        cwd: ROOT,
        env: cleanEnv({ CARTOGRAPHER_DATA: data.dir, CARTOGRAPHER_HTTP: "127.0.0.1:0" }),
        stdio: ["ignore", "pipe", "pipe"],
      });
      const npmPid = npm.pid as number;
      started.push(npmPid);
      let out = "";
      npm.stdout?.on("data", (c: Buffer) => {
        out += c.toString("utf8");
      });
      npm.stderr?.on("data", (c: Buffer) => {
        out += c.toString("utf8");
      });
      const url = await new Promise<string>((resolveUrl, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`npm start did not listen:\n${out}`)),
          30_000,
        );
        const check = () => {
          const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
          if (!m) return;
          clearTimeout(timer);
          resolveUrl(m[1] as string);
        };
        npm?.stdout?.on("data", check);
        npm?.on("exit", () => reject(new Error(`npm start exited:\n${out}`)));
      });
      started.push(...descendants(npmPid));
      expect(await healthAnswers(url)).toBe(true);
      // The banner points a person at the console, and the console shows the starter KB.
      const consoleUrl = /console: +(http:\/\/127\.0\.0\.1:\d+\/)\n/.exec(out)?.[1];
      expect(consoleUrl, out).toBe(`${url}/`);
      const home = await fetch(consoleUrl as string, { signal: AbortSignal.timeout(5_000) });
      expect(home.status).toBe(200);
      expect(home.headers.get("content-type")).toMatch(/^text\/html/);
      // CARTOGRAPHER_DATA names an empty folder: no starter KB, and the page says what to do.
      expect(await home.text()).toContain("cartographer kb create NAME --data DIR");

      const exited = new Promise<void>((r) => npm?.once("exit", () => r()));
      npm.kill("SIGTERM");
      await exited;
      // The server shuts down gracefully within a few seconds; orphaned, it would keep answering.
      let answering = true;
      for (let i = 0; i < 40 && answering; i++) {
        await new Promise((r) => setTimeout(r, 250));
        answering = await healthAnswers(url);
      }
      expect(answering).toBe(false);
      // The listener closes first; the process exits once its indexes are closed.
      for (let i = 0; i < 40 && started.some(alive); i++)
        await new Promise((r) => setTimeout(r, 250));
      expect(started.filter(alive)).toEqual([]);
    } finally {
      data.cleanup();
    }
  }, 60_000);
});
