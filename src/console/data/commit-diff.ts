/**
 * One commit and its patch for one viewer (a concept's history: concept-history.ts). Whatever the
 * viewer may not see answers exactly like what does not exist: null, which the page renders as
 * its one 404 (docs/decisions.md "Console: a commit as the viewer sees it").
 */
import { idsOfCommit, type ViewedCommit, type ViewScope, viewCommit } from "./commit-view.js";
import { readCommit, readPatch, resolveCommit } from "./git-reads.js";

export interface CommitDiff {
  commit: ViewedCommit;
  patch: string;
  /** The patch was cut (too many bytes or files). */
  truncated: boolean;
}

/** `sha` (7–40 hex) as the viewer may see it; null for a malformed, unknown or hidden commit. */
export async function commitDiff(
  root: string,
  scope: ViewScope,
  sha: string,
): Promise<CommitDiff | null> {
  const full = await resolveCommit(root, sha);
  if (full === null) return null;
  const raw = await readCommit(root, full);
  if (raw === null) return null;
  const visible = scope.all ? new Set<string>() : await scope.visibleIds(idsOfCommit(raw));
  const commit = viewCommit(raw, scope.all, visible);
  if (commit === null) return null;
  const patch = await readPatch(root, full, scope.all ? "all" : commit.paths);
  return { commit, patch: patch.text, truncated: patch.truncated };
}
