/**
 * Checks a fetched remote must pass before anything of it is brought into the KB (docs/sync.md
 * "Force-push" and "Private state"):
 * - diverged: commits this clone already had from the remote (or pushed to it) are gone from
 *   the remote's branch — a force-push. Rebasing onto the new tip would push the dropped
 *   commits (a leaked secret) right back, so sync stops until `cartographer kb resync`.
 * - private state: the remote tracks paths under `.cartographer/` (index, conflicts registry,
 *   locks). Checking them out would overwrite this instance's private state.
 * The marker `refs/cartographer/synced` is the last remote tip this clone is known to hold; it
 * lives in `.git`, is never pushed (sync pushes only HEAD to refs/heads/<branch>) and so
 * survives restarts.
 */
import { runGit } from "../git/git.js";
import { REMOTE, revParse } from "./remote-git.js";

export const SYNCED_REF = "refs/cartographer/synced";
const PRIVATE_DIR = ".cartographer";

export type PullHalt =
  | { kind: "diverged"; synced: string; remote: string }
  | { kind: "private_state"; paths: string[] };

async function isAncestor(root: string, a: string, b: string): Promise<boolean> {
  return (await runGit(root, ["merge-base", "--is-ancestor", a, b])).code === 0;
}

/** Paths under `.cartographer/` that `rev` tracks (at most a few, for the message). */
export async function trackedPrivatePaths(root: string, rev: string): Promise<string[]> {
  const r = await runGit(root, ["ls-tree", "-r", "--name-only", "-z", rev, "--", PRIVATE_DIR]);
  return r.code === 0 ? r.stdout.split("\0").filter(Boolean) : [];
}

/** Why the fetched `origin/<branch>` must not be pulled, or null when it may. */
export async function pullHalt(root: string, branch: string): Promise<PullHalt | null> {
  const remote = await revParse(root, `refs/remotes/${REMOTE}/${branch}`);
  if (!remote) return null;
  const synced = await revParse(root, SYNCED_REF);
  if (synced && !(await isAncestor(root, synced, remote)))
    return { kind: "diverged", synced, remote };
  const paths = await trackedPrivatePaths(root, remote);
  if (paths.length > 0) return { kind: "private_state", paths };
  return null;
}

/** Records that the remote holds `sha` (after a pull brought it in, or a push landed it). */
export async function markSynced(root: string, sha: string): Promise<void> {
  await runGit(root, ["update-ref", SYNCED_REF, sha]);
}

/** The operator-facing sentence for a halt (no absolute path, no URL). */
export function haltMessage(kb: string, halt: PullHalt): string {
  if (halt.kind === "diverged")
    return `diverged: the remote's branch no longer contains ${halt.synced.slice(0, 12)}, which this server already had from it or pushed to it (a force-push?); sync of KB '${kb}' is stopped so the dropped commits are not pushed back — run 'cartographer kb resync ${kb}' to keep the remote and re-apply only this server's unpushed commits`;
  const shown = halt.paths.slice(0, 3).join(", ");
  return `the remote tracks private state (${shown}${halt.paths.length > 3 ? ", …" : ""}) under .cartographer/: it is not pulled, so this server's index and registry stay its own; remove it from the remote (git rm -r --cached .cartographer, commit, push) and sync resumes`;
}

/** Forgets the marker: `origin` now names another remote, whose history is its own. */
export async function clearSynced(root: string): Promise<void> {
  await runGit(root, ["update-ref", "-d", SYNCED_REF]);
}
