/**
 * Two server processes on one KB (docs/decisions.md "One writing process per KB"), with the built
 * binary: the second is refused naming the holder, `reindex` too; after SIGKILL of the holder a new
 * one takes over; SIGTERM releases the locks. Same for a shared audit log.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  BIN,
  cleanEnv,
  GIT_ENV,
  type RunningServer,
  runBin,
  startServer,
  tempDir,
} from "./helpers.js";

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function kb(): Promise<{ dir: string; root: string }> {
  const t = tempDir();
  cleanups.push(t.cleanup);
  const made = await runBin(["kb", "create", "notes", "--data", t.dir], {
    cwd: t.dir,
    env: cleanEnv(GIT_ENV),
  });
  expect(made.code).toBe(0);
  return { dir: t.dir, root: join(t.dir, "notes") };
}

async function serve(args: string[], cwd: string): Promise<RunningServer> {
  const server = await startServer(["--http", "127.0.0.1:0", ...args], {
    cwd,
    env: cleanEnv(GIT_ENV),
  });
  cleanups.push(() => server.stop("SIGKILL"));
  return server;
}

/**
 * Starts a second server and waits until its stderr matches `pattern` (it may exit, or keep
 * running with the KB reported as unavailable); then stops it. Returns its stderr.
 */
async function refusedStart(args: string[], cwd: string, pattern: RegExp): Promise<string> {
  const proc: ChildProcess = spawn(
    process.execPath,
    [BIN, "serve", "--http", "127.0.0.1:0", ...args],
    { cwd, env: cleanEnv(GIT_ENV), stdio: ["ignore", "pipe", "pipe"] },
  );
  cleanups.push(() => proc.exitCode === null && proc.kill("SIGKILL"));
  let err = "";
  proc.stderr?.on("data", (d) => {
    err += d;
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no refusal in time; stderr:\n${err}`)),
      30_000,
    );
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    proc.stderr?.on("data", () => pattern.test(err) && done());
    proc.once("exit", () => (pattern.test(err) ? done() : reject(new Error(`stderr:\n${err}`))));
  });
  if (proc.exitCode === null) proc.kill("SIGKILL");
  return err;
}

describe("two processes on one KB (the built binary)", () => {
  it("the second server and reindex are refused naming the holder; SIGKILL → takeover; SIGTERM releases", async () => {
    const { dir, root } = await kb();
    const a = await serve(["--kb", root], dir);
    const lockFile = join(root, ".cartographer", "kb.lock");
    expect(existsSync(lockFile)).toBe(true);
    const holder = new RegExp(
      `KB 'notes' is in use by another cartographer process: pid ${a.proc.pid} on host ${hostname().replace(/[.]/g, "\\.")} \\(serve since`,
    );
    const stderr = await refusedStart(["--kb", root], dir, holder);
    expect(stderr).not.toContain(`${root}/.cartographer`);

    const reindex = await runBin(["reindex", "--kb", root], { cwd: dir, env: cleanEnv(GIT_ENV) });
    expect(reindex.code).toBe(1);
    expect(reindex.stderr).toMatch(holder);
    // No server answers at the client yaml's URL here, so nothing can reindex it for us.
    expect(reindex.stderr).toContain("no running server mounts it");

    await a.stop("SIGKILL");
    expect(existsSync(lockFile)).toBe(true); // no cleanup ran
    const b = await serve(["--kb", root], dir);
    expect(b.stderr()).toContain(`took over the lock of pid ${a.proc.pid}`);
    expect(await b.stop("SIGTERM")).toBe(0);
    expect(existsSync(lockFile)).toBe(false);

    const again = await runBin(["reindex", "--kb", root], { cwd: dir, env: cleanEnv(GIT_ENV) });
    expect(again.code).toBe(0);
    expect(existsSync(lockFile)).toBe(false);
  });

  it("stdio: the lock is held while serving and released when the input ends or on SIGTERM", async () => {
    const { dir, root } = await kb();
    const lockFile = join(root, ".cartographer", "kb.lock");
    for (const stop of ["stdin", "SIGTERM"] as const) {
      const proc = spawn(process.execPath, [BIN, "serve", "--kb", root], {
        cwd: dir,
        env: cleanEnv(GIT_ENV),
        stdio: ["pipe", "pipe", "pipe"],
      });
      cleanups.push(() => proc.exitCode === null && proc.kill("SIGKILL"));
      const exited = new Promise<number | null>((r) => proc.once("exit", (code) => r(code)));
      // Serving once it answers initialize (signal handlers are in place by then).
      const answered = new Promise((r) => proc.stdout?.once("data", r));
      proc.stdin?.write(
        `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "e2e", version: "1" } } })}\n`,
      );
      await answered;
      expect(existsSync(lockFile), stop).toBe(true);
      if (stop === "stdin") proc.stdin?.end();
      else proc.kill("SIGTERM");
      expect(await exited, stop).toBe(0);
      expect(existsSync(lockFile), stop).toBe(false);
    }
  });

  it("a second server appending to the same audit log is refused at startup naming the holder", async () => {
    const one = await kb();
    const two = await kb();
    const log = join(one.dir, "audit.jsonl");
    const a = await serve(["--kb", one.root, "--audit-log", log], one.dir);
    await refusedStart(
      ["--kb", two.root, "--audit-log", log],
      two.dir,
      new RegExp(`audit log .* is in use by another cartographer process: pid ${a.proc.pid}`),
    );
    expect(await a.stop("SIGTERM")).toBe(0);
    expect(existsSync(`${log}.lock`)).toBe(false);
  });
});
