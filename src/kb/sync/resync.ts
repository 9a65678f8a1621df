/**
 * `cartographer kb resync <kb>` (docs/sync.md "Force-push"): the operator's answer to a
 * `diverged` KB. The remote's branch is kept as it is now; of the local history only this
 * server's unpushed commits — those after the last remote tip it held (diverged.ts marker) —
 * are re-applied on top, so commits the remote dropped (a leaked secret) are not pushed back.
 * The previous HEAD stays reachable under refs/cartographer/before-resync.
 */
import { KbError } from "../../common/errors.js";
import type { GitIdentity } from "../core/types.js";
import { identityArgs, runGit } from "../git/git.js";
import { markSynced, SYNCED_REF } from "./diverged.js";
import {
  currentBranch,
  fetchOrigin,
  pushBranch,
  REMOTE,
  type RemoteContext,
  revParse,
} from "./remote-git.js";

export const BEFORE_RESYNC_REF = "refs/cartographer/before-resync";

export interface ResyncResult {
  branch: string;
  /** The remote tip kept. */
  remote: string;
  /** Unpushed commits re-applied on top of it (subjects). */
  reapplied: string[];
  /** Commits that no longer apply (subjects); reachable from BEFORE_RESYNC_REF. */
  skipped: string[];
  /** Null when the push worked, else why (the server pushes at its next sync). */
  pushProblem: string | null;
}

async function lines(root: string, args: string[]): Promise<string[]> {
  const r = await runGit(root, args);
  if (r.code !== 0) throw new KbError("git_failed", `git ${args[0]} failed during resync`);
  return r.stdout.split("\n").filter(Boolean);
}

async function subject(root: string, sha: string): Promise<string> {
  return (await lines(root, ["log", "-1", "--format=%s", sha]))[0] ?? sha.slice(0, 12);
}

/** Where this server's own commits start: the marker, else the fork point with the remote. */
async function base(root: string, remote: string): Promise<string | null> {
  const synced = await revParse(root, SYNCED_REF);
  if (synced && (await runGit(root, ["merge-base", "--is-ancestor", synced, "HEAD"])).code === 0)
    return synced;
  const fork = await runGit(root, ["merge-base", "HEAD", remote]);
  return fork.code === 0 ? fork.stdout.trim() : null;
}

/** Resyncs the KB at `ctx.root` (its server must be stopped: the caller holds the KB lock). */
export async function resyncKb(ctx: RemoteContext, committer: GitIdentity): Promise<ResyncResult> {
  const { root } = ctx;
  const branch = await currentBranch(root);
  if (!branch)
    throw new KbError(
      "git_failed",
      "resync needs the KB on its branch, and HEAD is detached: check the branch out first",
    );
  const dirty = await lines(root, ["status", "--porcelain", "--untracked-files=no"]);
  if (dirty.length > 0)
    throw new KbError(
      "conflict",
      `the KB has uncommitted changes (${dirty.length} file(s)): commit or discard them first`,
    );
  const problem = await fetchOrigin(ctx);
  if (problem) throw new KbError("git_failed", problem);
  const remote = await revParse(root, `refs/remotes/${REMOTE}/${branch}`);
  if (!remote)
    throw new KbError("not_found", `the remote has no branch '${branch}': nothing to resync onto`);
  const head = (await revParse(root, "HEAD")) as string;
  const from = await base(root, remote);
  const range = from ? [`${from}..${head}`] : [head];
  const ours = await lines(root, [
    "rev-list",
    "--reverse",
    "--no-merges",
    ...range,
    "--not",
    remote,
  ]);
  await runGit(root, ["update-ref", BEFORE_RESYNC_REF, head]);
  const reset = await runGit(root, ["reset", "-q", "--hard", remote]);
  if (reset.code !== 0) throw new KbError("git_failed", "git reset onto the remote failed");
  const reapplied: string[] = [];
  const skipped: string[] = [];
  for (const sha of ours) {
    const picked = await runGit(root, [
      ...identityArgs(committer),
      "cherry-pick",
      "--allow-empty",
      sha,
    ]);
    if (picked.code === 0) reapplied.push(await subject(root, sha));
    else {
      await runGit(root, ["cherry-pick", "--abort"]);
      skipped.push(await subject(root, sha));
    }
  }
  await markSynced(root, remote);
  let pushProblem: string | null = null;
  if (reapplied.length > 0) {
    const pushed = await pushBranch(ctx, branch);
    if (pushed.ok) await markSynced(root, (await revParse(root, "HEAD")) as string);
    else pushProblem = pushed.message;
  }
  return { branch, remote, reapplied, skipped, pushProblem };
}
