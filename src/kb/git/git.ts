/**
 * The git CLI via execFile (no shell). Identity is always explicit (author AND committer), so
 * commits never depend on a global git configuration (design.md §4).
 */
import { execFile } from "node:child_process";
import { access, readFile } from "node:fs/promises";
import { join } from "node:path";
import { KbError } from "../../common/errors.js";
import type { GitIdentity } from "../core/types.js";

export const FALLBACK_IDENTITY: GitIdentity = Object.freeze({
  name: "cartographer",
  email: "cartographer@localhost",
});

export interface GitResult {
  stdout: string;
  stderr: string;
  code: number;
}

/** A local git command killed after `timeoutMs` answers this exit code (as timeout(1) does). */
export const GIT_TIMED_OUT = 124;

/**
 * Runs git in `cwd`; never throws for a non-zero exit (callers decide). `env`, when given, is
 * the child's whole environment (remote sync passes the server's env plus its SSH/askpass keys).
 * `timeoutMs`, when given, kills a local read that runs longer (the console's bounded history
 * reads): it answers code GIT_TIMED_OUT.
 */
export function runGit(
  cwd: string,
  args: string[],
  input?: string,
  env?: Readonly<Record<string, string | undefined>>,
  timeoutMs?: number,
): Promise<GitResult> {
  return new Promise((resolvePromise, reject) => {
    const child = execFile(
      "git",
      ["-c", "core.quotePath=false", ...args],
      {
        cwd,
        maxBuffer: 256 * 1024 * 1024,
        encoding: "utf8",
        ...(env ? { env } : {}),
        ...(timeoutMs ? { timeout: timeoutMs, killSignal: "SIGKILL" as const } : {}),
      },
      (error, stdout, stderr) => {
        if (error?.killed && timeoutMs) {
          resolvePromise({
            stdout: "",
            stderr: `git timed out after ${timeoutMs} ms`,
            code: GIT_TIMED_OUT,
          });
          return;
        }
        if (error && typeof (error as NodeJS.ErrnoException).code === "string") {
          reject(new KbError("git_failed", `cannot run git: ${error.message}`));
          return;
        }
        const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
        resolvePromise({ stdout, stderr, code });
      },
    );
    // git may exit before reading stdin (e.g. on a usage error): its exit code reports that.
    child.stdin?.on("error", () => {});
    if (input !== undefined) child.stdin?.end(input);
  });
}

/**
 * Runs git in `cwd` for its raw output bytes (an object's body: a tree holds binary ids, a path
 * need not be UTF-8), killed after `timeoutMs`. Throws `git_failed` on a non-zero exit.
 */
export function gitBytes(
  cwd: string,
  args: string[],
  env: Readonly<Record<string, string | undefined>> | undefined,
  timeoutMs: number,
): Promise<Buffer> {
  return new Promise((resolvePromise, reject) => {
    execFile(
      "git",
      args,
      {
        cwd,
        encoding: "buffer",
        maxBuffer: 256 * 1024 * 1024,
        timeout: timeoutMs,
        killSignal: "SIGKILL",
        ...(env ? { env } : {}),
      },
      (error, stdout, stderr) => {
        if (!error) return resolvePromise(stdout);
        const why = error.killed ? `timed out after ${timeoutMs} ms` : summarize(String(stderr));
        reject(new KbError("git_failed", `git ${args[0]} failed: ${why}`));
      },
    );
  });
}

export function summarize(stderr: string): string {
  const lines = stderr.trim().split("\n").filter(Boolean);
  return lines.slice(0, 5).join(" | ").slice(0, 600) || "no output";
}

/** Runs git and throws `git_failed` with git's stderr summarized on a non-zero exit. */
export async function git(
  cwd: string,
  args: string[],
  input?: string,
  env?: Readonly<Record<string, string | undefined>>,
): Promise<string> {
  const r = await runGit(cwd, args, input, env);
  if (r.code !== 0) {
    throw new KbError("git_failed", `git ${args[0]} failed: ${summarize(r.stderr || r.stdout)}`);
  }
  return r.stdout;
}

/** git's own configured user for this repository (local, then global), or null. */
export async function configuredIdentity(cwd: string): Promise<GitIdentity | null> {
  const [name, email] = await Promise.all([
    runGit(cwd, ["config", "--get", "user.name"]),
    runGit(cwd, ["config", "--get", "user.email"]),
  ]);
  const n = name.stdout.trim();
  const e = email.stdout.trim();
  return name.code === 0 && email.code === 0 && n && e ? { name: n, email: e } : null;
}

/** `-c` options that make author and committer explicit (env GIT_* overrides are pinned too). */
export function identityArgs(id: GitIdentity): string[] {
  return [
    "-c",
    `user.name=${id.name}`,
    "-c",
    `user.email=${id.email}`,
    "-c",
    "commit.gpgsign=false",
  ];
}

export async function headSha(cwd: string): Promise<string | null> {
  const r = await runGit(cwd, ["rev-parse", "--verify", "-q", "HEAD"]);
  return r.code === 0 ? r.stdout.trim() : null;
}

/** Paths that exist on disk or are tracked (git add refuses anything else). */
export async function stageablePaths(cwd: string, paths: string[]): Promise<string[]> {
  if (paths.length === 0) return [];
  const exists = await Promise.all(
    paths.map((p) =>
      access(join(cwd, p)).then(
        () => true,
        () => false,
      ),
    ),
  );
  const missing = paths.filter((_, i) => !exists[i]);
  if (missing.length === 0) return paths;
  const trackedSet = new Set<string>();
  for (let i = 0; i < missing.length; i += 200) {
    const chunk = missing.slice(i, i + 200).map((p) => `:(literal)${p}`);
    const out = await git(cwd, ["ls-files", "-z", "--", ...chunk]);
    for (const p of out.split("\0")) if (p) trackedSet.add(p);
  }
  return paths.filter((p, i) => exists[i] || trackedSet.has(p));
}

/**
 * Stages exactly `paths` (additions, modifications, deletions) and commits them alone, even
 * when other changes are staged. Returns the sha, or null when none of the paths changed.
 */
export async function commitPaths(
  cwd: string,
  paths: string[],
  message: string,
  identity: GitIdentity,
): Promise<string | null> {
  const wanted = await stageablePaths(cwd, [...new Set(paths)]);
  if (wanted.length === 0) return null;
  await stagePaths(cwd, wanted);
  return partialCommit(cwd, wanted, message, identity);
}

/** Literal pathspecs: an asset named `public/*` must stage that one file, not a glob match. */
function pathspecList(paths: readonly string[]): string {
  return `${paths.map((p) => `:(literal)${p}`).join("\0")}\0`;
}

/** `git add -A` of exactly `paths` in the repository's index. */
export async function stagePaths(cwd: string, paths: readonly string[]): Promise<void> {
  await git(
    cwd,
    ["add", "-A", "--pathspec-from-file=-", "--pathspec-file-nul"],
    pathspecList(paths),
  );
}

/**
 * `git commit <paths>`: a commit of the staged `paths` alone (git builds it in a temporary
 * index from HEAD), whatever else is staged. The sha, or null when none of them changed.
 */
export async function partialCommit(
  cwd: string,
  paths: readonly string[],
  message: string,
  identity: GitIdentity,
): Promise<string | null> {
  const author = `${identity.name} <${identity.email}>`;
  const r = await runGit(
    cwd,
    [
      ...identityArgs(identity),
      "commit",
      "-q",
      "--no-verify",
      `--author=${author}`,
      "-m",
      message,
      "--pathspec-from-file=-",
      "--pathspec-file-nul",
    ],
    pathspecList(paths),
  );
  if (r.code !== 0) {
    // The paths were staged but none of them differs from HEAD: nothing to commit.
    if (
      /nothing to commit|no changes added to commit|nothing added to commit/.test(
        r.stdout + r.stderr,
      )
    )
      return null;
    throw new KbError("git_failed", `git commit failed: ${summarize(r.stderr || r.stdout)}`);
  }
  return (await readHeadSha(cwd)) ?? headSha(cwd);
}

/** HEAD's sha read from .git without a process; null when it is not a plain loose ref. */
export async function readHeadSha(cwd: string): Promise<string | null> {
  try {
    const head = (await readFile(join(cwd, ".git", "HEAD"), "utf8")).trim();
    if (/^[0-9a-f]{40}$/.test(head)) return head;
    const ref = /^ref: (refs\/[^\s]+)$/.exec(head)?.[1];
    if (!ref) return null;
    const sha = (await readFile(join(cwd, ".git", ref), "utf8")).trim();
    return /^[0-9a-f]{40}$/.test(sha) ? sha : null;
  } catch {
    return null; // packed refs, a worktree's .git file, …: ask git instead
  }
}
