/**
 * Git commands that talk to a remote (fetch, push, clone, ls-remote), each bounded in time: a
 * remote that accepts TCP and never answers must not hold a KB's lock, its calls or shutdown
 * (docs/sync.md "Timeouts", docs/decisions.md). The child runs in its own process group so the
 * kill reaches git's transport helpers (git-remote-https, ssh) too, which would otherwise keep
 * the pipes open after git itself died. Shutdown aborts every one still running.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { KbError } from "../../common/errors.js";
import type { GitResult } from "../git/git.js";

/** A network command's result; `timedOut` when the bound killed it. */
export interface NetworkGitResult extends GitResult {
  timedOut?: boolean;
}

/** `git.network_timeout` default (docs/sync.md "Timeouts"). */
export const DEFAULT_NETWORK_TIMEOUT_MS = 30_000;

/** Once shutdown began, a network command (the final push) gets at most this long. */
export const SHUTDOWN_NETWORK_MS = 4_000;

const running = new Set<ChildProcess>();
let shuttingDown = false;

function killGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, "SIGKILL");
  } catch {
    child.kill("SIGKILL"); // the group is gone already; the child itself may not be
  }
}

/**
 * Kills every network git command under way and bounds later ones (the final push of pending
 * commits) by SHUTDOWN_NETWORK_MS: SIGTERM must finish within its drain budget whatever git is
 * doing. The calls whose pull was killed go on with the local tree.
 */
export function abortNetworkGit(): void {
  shuttingDown = true;
  for (const child of running) killGroup(child);
}

/** Clears the shutdown flag (tests that start servers again in one process). */
export function resetNetworkGit(): void {
  shuttingDown = false;
}

/**
 * Runs `git <args>` in `cwd` with `env` as its whole environment, killed (with its transport
 * helpers) after `timeoutMs`; never throws for a non-zero exit. A timeout answers code 124
 * (as timeout(1) does) with a stderr that says so and names the config key.
 */
export function runNetworkGit(
  cwd: string,
  args: string[],
  env: Readonly<Record<string, string | undefined>>,
  timeoutMs: number,
): Promise<NetworkGitResult> {
  const bound = shuttingDown
    ? Math.min(timeoutMs > 0 ? timeoutMs : SHUTDOWN_NETWORK_MS, SHUTDOWN_NETWORK_MS)
    : timeoutMs;
  return new Promise((resolvePromise, reject) => {
    const child = spawn("git", ["-c", "core.quotePath=false", ...args], {
      cwd,
      env: env as NodeJS.ProcessEnv,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    running.add(child);
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    child.stdout?.setEncoding("utf8").on("data", (d: string) => {
      stdout += d;
    });
    child.stderr?.setEncoding("utf8").on("data", (d: string) => {
      stderr += d;
    });
    const timer =
      bound > 0
        ? setTimeout(() => {
            timedOut = true;
            killGroup(child);
          }, bound)
        : undefined;
    child.once("error", (err) => {
      clearTimeout(timer);
      running.delete(child);
      reject(new KbError("git_failed", `cannot run git: ${err.message}`));
    });
    child.once("close", (code) => {
      clearTimeout(timer);
      running.delete(child);
      if (timedOut)
        resolvePromise({
          stdout,
          stderr: `the remote did not answer within ${bound / 1000} s (git.network_timeout)`,
          code: 124,
          timedOut: true,
        });
      else if (code === null && shuttingDown)
        resolvePromise({ stdout, stderr: "stopped: the server is shutting down", code: 125 });
      else resolvePromise({ stdout, stderr, code: code ?? 1 });
    });
  });
}
