/**
 * What a KB's sync does once when it opens, before a call is served (docs/sync.md "Recovery"):
 * undo a git operation a crash interrupted and re-index what that moved, and read the conflicts
 * registry only when it is this server's own — never one that came from git.
 */
import type { Logger } from "../../logger.js";
import type { GitIdentity } from "../core/types.js";
import { type ConflictEntry, readConflicts } from "./conflicts.js";
import { trackedPrivatePaths } from "./diverged.js";
import { recoverInterrupted } from "./recover.js";
import { changedPaths } from "./remote-git.js";

const REGISTRY = ".cartographer/conflicts.json";

export interface OpenContext {
  kb: string;
  root: string;
  committer: () => Promise<GitIdentity>;
  onHeadMoved: (paths: string[]) => Promise<void>;
  logger: Logger;
}

/** Recovers an interrupted operation; re-indexes the paths it changed. */
export async function recoverAtOpen(ctx: OpenContext): Promise<void> {
  const done = await recoverInterrupted(ctx.root, await ctx.committer(), ctx.logger, ctx.kb);
  const paths = new Set(done.dirty);
  if (done.before && done.after && done.before !== done.after)
    for (const p of await changedPaths(ctx.root, done.before, done.after)) paths.add(p);
  if (paths.size > 0) await ctx.onHeadMoved([...paths]);
}

/**
 * The registry, unless HEAD tracks it: a registry checked out of git is someone else's (or an
 * attacker's) and would plant conflicts this server never saw, so it is ignored with a warning.
 */
export async function trustedConflicts(ctx: OpenContext): Promise<ConflictEntry[]> {
  const tracked = await trackedPrivatePaths(ctx.root, "HEAD");
  if (tracked.length === 0) return readConflicts(ctx.root);
  ctx.logger.warn(
    `KB '${ctx.kb}': its git history tracks ${tracked.slice(0, 3).join(", ")} under .cartographer/ (private state): ${tracked.includes(REGISTRY) ? "the conflicts registry is not trusted (ignored); " : ""}remove it with git rm -r --cached .cartographer and commit`,
  );
  return tracked.includes(REGISTRY) ? [] : readConflicts(ctx.root);
}
