/**
 * The git commands remote sync runs (fetch, rebase, push, clone), each returning what happened
 * as data; messages are redacted (remote-access.ts) before anyone sees them.
 */

import type { GitIdentity } from "../core/types.js";
import { identityArgs, runGit, summarize } from "../git/git.js";
import { runNetworkGit } from "./network-git.js";
import { type RemoteAccess, redactRemote } from "./remote-access.js";

export const REMOTE = "origin";

/** Where and how to reach the remote of one repository. */
export interface RemoteContext {
  root: string;
  access: RemoteAccess;
  /** The server's environment plus access.env. */
  env: Readonly<Record<string, string | undefined>>;
  /** The origin URL, redacted out of messages. */
  url?: string;
}

/** `timedOut`: the remote did not answer within git.network_timeout (retrying now is futile). */
export type PushOutcome =
  | { ok: true }
  | { ok: false; rejected: boolean; timedOut: boolean; message: string };

export type RebaseOutcome =
  | { ok: true; moved: false }
  | { ok: true; moved: true; before: string; after: string }
  | { ok: false; conflict: true; files: string[]; localSha: string; remoteSha: string }
  | { ok: false; conflict: false; message: string };

/** origin's URL, or null when the repository has no `origin`. */
export async function originUrl(root: string): Promise<string | null> {
  const r = await runGit(root, ["remote", "get-url", REMOTE]);
  return r.code === 0 ? r.stdout.trim() : null;
}

/** The checked-out branch, or null on a detached HEAD. */
export async function currentBranch(root: string): Promise<string | null> {
  const r = await runGit(root, ["symbolic-ref", "--short", "-q", "HEAD"]);
  return r.code === 0 && r.stdout.trim() ? r.stdout.trim() : null;
}

export async function revParse(root: string, ref: string): Promise<string | null> {
  const r = await runGit(root, ["rev-parse", "--verify", "-q", `${ref}^{commit}`]);
  return r.code === 0 ? r.stdout.trim() : null;
}

function message(ctx: RemoteContext, what: string, stderr: string): string {
  return redactRemote(`git ${what} failed: ${summarize(stderr)}`, ctx.url);
}

/** `git fetch origin`: null when it worked, else the redacted reason. */
export async function fetchOrigin(ctx: RemoteContext): Promise<string | null> {
  return (await fetchOriginBounded(ctx)).problem;
}

/** `git fetch origin`, saying whether a failure was the network timeout. */
export async function fetchOriginBounded(
  ctx: RemoteContext,
): Promise<{ problem: string | null; timedOut: boolean }> {
  const r = await runNetworkGit(
    ctx.root,
    [...ctx.access.args, "fetch", "--quiet", "--no-tags", REMOTE],
    ctx.env,
    ctx.access.timeoutMs,
  );
  if (r.code === 0) return { problem: null, timedOut: false };
  return { problem: message(ctx, "fetch", r.stderr || r.stdout), timedOut: r.timedOut === true };
}

/**
 * Brings local commits onto `origin/<branch>` (autostash): a rebase, or a merge when the local
 * commits hold a merge (a conflict's resolution not pushed yet: a rebase would flatten it and
 * replay the conflicting commits, which conflict again). A conflict aborts the operation: HEAD
 * and the tree are as before, and EVERY file that conflicts is returned (docs/decisions.md): the
 * files of the step where the rebase stopped, and every file the merge of the two tips (what
 * git_conflict_resolve commits) conflicts on, whichever local commit touched it.
 */
export async function rebaseOnto(
  ctx: RemoteContext,
  branch: string,
  committer: GitIdentity,
): Promise<RebaseOutcome> {
  const upstream = `${REMOTE}/${branch}`;
  const remoteSha = await revParse(ctx.root, `refs/remotes/${upstream}`);
  const localSha = await revParse(ctx.root, "HEAD");
  if (!remoteSha || !localSha || remoteSha === localSha) return { ok: true, moved: false };
  // Already contains the remote (e.g. after a conflict's merge commit): nothing to bring in.
  const contains = await runGit(ctx.root, ["merge-base", "--is-ancestor", remoteSha, localSha]);
  if (contains.code === 0) return { ok: true, moved: false };
  const merges = await runGit(ctx.root, [
    "rev-list",
    "--count",
    "--merges",
    `${remoteSha}..${localSha}`,
  ]);
  const byMerge = merges.code === 0 && Number.parseInt(merges.stdout.trim(), 10) > 0;
  const r = await runGit(ctx.root, [
    ...identityArgs(committer),
    ...(byMerge
      ? ["merge", "--autostash", "--no-edit", "--no-verify", "-m", `sync: merge ${upstream}`]
      : ["rebase", "--autostash", "--no-verify"]),
    upstream,
  ]);
  if (r.code === 0) {
    const after = await revParse(ctx.root, "HEAD");
    return after && after !== localSha
      ? { ok: true, moved: true, before: localSha, after }
      : { ok: true, moved: false };
  }
  const stopped = await unmergedFiles(ctx.root);
  await runGit(ctx.root, [byMerge ? "merge" : "rebase", "--abort"]);
  if (stopped.length === 0)
    return {
      ok: false,
      conflict: false,
      message: message(ctx, byMerge ? "merge" : "rebase", r.stderr || r.stdout),
    };
  const files = [
    ...new Set([...stopped, ...(await mergeConflicts(ctx.root, localSha, remoteSha))]),
  ];
  return { ok: false, conflict: true, files, localSha, remoteSha };
}

/** Files the index holds unmerged (a rebase or merge stopped on them). */
export async function unmergedFiles(root: string): Promise<string[]> {
  const r = await runGit(root, ["diff", "--name-only", "-z", "--diff-filter=U"]);
  return r.stdout.split("\0").filter(Boolean);
}

/**
 * Files a merge of `ours` and `theirs` would conflict on, computed without touching the tree
 * (`git merge-tree --write-tree`, git ≥ 2.38); empty when git cannot say.
 */
export async function mergeConflicts(
  root: string,
  ours: string,
  theirs: string,
): Promise<string[]> {
  const r = await runGit(root, [
    "merge-tree",
    "--write-tree",
    "--name-only",
    "--no-messages",
    "-z",
    ours,
    theirs,
  ]);
  if (r.code !== 1) return []; // 0: clean; anything else: an old git or an error
  return r.stdout.split("\0").slice(1).filter(Boolean);
}

/** `git push origin HEAD:refs/heads/<branch>`; `rejected` = non-fast-forward. */
export async function pushBranch(ctx: RemoteContext, branch: string): Promise<PushOutcome> {
  const r = await runNetworkGit(
    ctx.root,
    [...ctx.access.args, "push", "--porcelain", REMOTE, `HEAD:refs/heads/${branch}`],
    ctx.env,
    ctx.access.timeoutMs,
  );
  if (r.code === 0) return { ok: true };
  const text = `${r.stdout}\n${r.stderr}`;
  const rejected = /non-fast-forward|\[rejected\]|fetch first|Updates were rejected/i.test(text);
  const timedOut = r.timedOut === true;
  return { ok: false, rejected, timedOut, message: message(ctx, "push", r.stderr || r.stdout) };
}

/**
 * Commits on HEAD that origin/<branch> does not have (all of them when it has none); on a
 * detached HEAD (`branch` null), those on no branch of origin.
 */
export async function unpushedCount(root: string, branch: string | null): Promise<number> {
  const upstream = branch ? await revParse(root, `refs/remotes/${REMOTE}/${branch}`) : null;
  const range = upstream
    ? [`${upstream}..HEAD`]
    : branch
      ? ["HEAD"]
      : ["HEAD", "--not", `--remotes=${REMOTE}`];
  const r = await runGit(root, ["rev-list", "--count", ...range]);
  return r.code === 0 ? Number.parseInt(r.stdout.trim(), 10) || 0 : 0;
}

/** KB-root-relative paths that differ between two commits. */
export async function changedPaths(root: string, from: string, to: string): Promise<string[]> {
  const r = await runGit(root, ["diff", "--name-only", "--no-renames", "-z", from, to]);
  return r.code === 0 ? r.stdout.split("\0").filter(Boolean) : [];
}

/** `git clone URL DEST` from `cwd`: null when it worked, else the redacted reason. */
export async function cloneRepo(
  cwd: string,
  url: string,
  dest: string,
  access: RemoteAccess,
  env: Readonly<Record<string, string | undefined>>,
): Promise<string | null> {
  const r = await runNetworkGit(
    cwd,
    [...access.args, "clone", "--quiet", "--", url, dest],
    env,
    access.timeoutMs,
  );
  return r.code === 0 ? null : redactRemote(`git clone failed: ${summarize(r.stderr)}`, url);
}
