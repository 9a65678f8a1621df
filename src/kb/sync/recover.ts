/**
 * Recovery of a git operation a crash interrupted (docs/sync.md "Recovery"), run when a KB's
 * sync opens, before anything is served from the tree: a SIGKILL mid-pull leaves
 * `.git/rebase-merge` and a detached, half-replayed HEAD; a killed git leaves `index.lock`.
 * The operation is aborted back to the branch (git keeps the branch at its pre-rebase tip, so
 * every commit of ours is there), then commits made on the detached HEAD that the branch does
 * not have (patch-equivalent copies and the remote's commits excluded) are replayed onto it.
 * A replay that conflicts is kept under refs/cartographer/recovered/ and logged: never lost.
 */
import { existsSync } from "node:fs";
import { readFile, rm, stat } from "node:fs/promises";
import { isAbsolute, join } from "node:path";
import type { Logger } from "../../logger.js";
import type { GitIdentity } from "../core/types.js";
import { identityArgs, runGit } from "../git/git.js";
import { currentBranch, revParse } from "./remote-git.js";

/** An index.lock untouched this long at open belongs to no running git. */
const STALE_LOCK_MS = 2_000;

export interface Recovery {
  /** What was found and undone, for the log (empty: nothing was interrupted). */
  actions: string[];
  /** HEAD before and after, when recovery moved it (the caller re-indexes the diff). */
  before: string | null;
  after: string | null;
  /** Paths changed in the work tree before the abort (conflict markers, half-applied files). */
  dirty: string[];
}

async function gitDir(root: string): Promise<string> {
  const r = await runGit(root, ["rev-parse", "--git-dir"]);
  const dir = r.stdout.trim() || ".git";
  return isAbsolute(dir) ? dir : join(root, dir);
}

async function removeStaleLock(dir: string, actions: string[]): Promise<void> {
  const lock = join(dir, "index.lock");
  const st = await stat(lock).catch(() => null);
  if (!st) return;
  const age = Date.now() - st.mtimeMs;
  if (age < STALE_LOCK_MS) await new Promise((r) => setTimeout(r, STALE_LOCK_MS - age));
  if (!existsSync(lock)) return;
  await rm(lock, { force: true });
  actions.push("removed a stale .git/index.lock");
}

/** The branch an interrupted rebase was on (`refs/heads/<b>` in its state dir), or null. */
async function rebaseBranch(dir: string): Promise<string | null> {
  for (const state of ["rebase-merge", "rebase-apply"]) {
    const name = await readFile(join(dir, state, "head-name"), "utf8").catch(() => "");
    const m = /^refs\/heads\/(.+)$/.exec(name.trim());
    if (m?.[1]) return m[1];
  }
  return null;
}

/** Files the work tree or index changed against HEAD (tracked only). */
async function dirtyPaths(root: string): Promise<string[]> {
  const r = await runGit(root, ["diff", "HEAD", "--name-only", "--no-renames", "-z"]);
  return r.code === 0 ? r.stdout.split("\0").filter(Boolean) : [];
}

async function abortOperation(root: string, dir: string, actions: string[]): Promise<void> {
  const ops: [string, string][] = [
    ["rebase-merge", "rebase"],
    ["rebase-apply", "rebase"],
    ["MERGE_HEAD", "merge"],
    ["CHERRY_PICK_HEAD", "cherry-pick"],
    ["REVERT_HEAD", "revert"],
  ];
  for (const [marker, op] of ops) {
    if (!existsSync(join(dir, marker))) continue;
    const r = await runGit(root, [op, "--abort"]);
    if (r.code !== 0 && op === "rebase") {
      // A state git cannot abort (half-written by the kill): drop it, the branch is intact.
      await runGit(root, ["rebase", "--quit"]);
      await rm(join(dir, marker), { recursive: true, force: true });
    }
    actions.push(`aborted an interrupted ${op}`);
  }
}

/** The only local branch, when there is exactly one (a detached HEAD with no operation). */
async function soleBranch(root: string): Promise<string | null> {
  const r = await runGit(root, ["for-each-ref", "--format=%(refname:short)", "refs/heads/"]);
  const names = r.stdout.split("\n").filter(Boolean);
  return names.length === 1 ? (names[0] as string) : null;
}

/** Commits of `tip` the branch lacks, oldest first (copies of its own and remote commits out). */
async function ours(root: string, branch: string, tip: string): Promise<string[]> {
  const r = await runGit(root, [
    "rev-list",
    "--reverse",
    "--no-merges",
    "--right-only",
    "--cherry-pick",
    `refs/heads/${branch}...${tip}`,
    "--not",
    "--remotes",
  ]);
  return r.code === 0 ? r.stdout.split("\n").filter(Boolean) : [];
}

async function replay(
  root: string,
  commits: string[],
  committer: GitIdentity,
  actions: string[],
): Promise<void> {
  for (const [i, sha] of commits.entries()) {
    const r = await runGit(root, [...identityArgs(committer), "cherry-pick", "--allow-empty", sha]);
    if (r.code === 0) continue;
    await runGit(root, ["cherry-pick", "--abort"]);
    const ref = `refs/cartographer/recovered/${sha}`;
    const last = commits[commits.length - 1] as string;
    await runGit(root, ["update-ref", ref, last]);
    actions.push(
      `could not replay ${commits.length - i} commit(s) from ${sha.slice(0, 12)}: kept under ${ref}`,
    );
    return;
  }
  if (commits.length > 0)
    actions.push(`replayed ${commits.length} commit(s) made on the detached HEAD onto the branch`);
}

/**
 * Detects and undoes an interrupted git operation in the repository at `root`; logs one line
 * per action. Never throws for git's own failures (the detached-HEAD guard still refuses writes).
 */
export async function recoverInterrupted(
  root: string,
  committer: GitIdentity,
  logger: Logger,
  kb: string,
): Promise<Recovery> {
  const dir = await gitDir(root);
  const actions: string[] = [];
  await removeStaleLock(dir, actions);
  const before = await revParse(root, "HEAD");
  const detached = before !== null && (await currentBranch(root)) === null;
  const interruptedOn = await rebaseBranch(dir);
  const dirty = await dirtyPaths(root);
  await abortOperation(root, dir, actions);
  let branch = await currentBranch(root);
  if (!branch) {
    const target = interruptedOn ?? (await soleBranch(root));
    if (target && (await runGit(root, ["checkout", "-q", "-f", target])).code === 0) {
      actions.push(`checked out branch ${target} again (HEAD was detached)`);
      branch = target;
    }
  }
  // Writes acknowledged on the detached HEAD (before this guard existed, or a human's).
  if (branch && detached && before)
    await replay(root, await ours(root, branch, before), committer, actions);
  for (const action of actions) logger.warn(`KB '${kb}': recovery at open: ${action}`);
  if (!branch && before)
    logger.warn(
      `KB '${kb}': HEAD is detached and no branch could be chosen; writes are refused until a branch is checked out`,
    );
  const after = await revParse(root, "HEAD");
  return { actions, before, after, dirty };
}
