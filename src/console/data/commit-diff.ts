/**
 * One commit and its patch for one viewer, and a concept's history. Whatever the viewer may not
 * see answers exactly like what does not exist: null, which the page renders as its one 404
 * (docs/decisions.md "Console: a commit as the viewer sees it").
 */
import { candidatePaths, isValidId } from "../../kb/core/ids.js";
import { idsOfCommit, type ViewedCommit, type ViewScope, viewCommit } from "./commit-view.js";
import { type FeedPage, readFeed } from "./feed.js";
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

/**
 * A concept's history (commits touching `data/<id>.md` or `data/<id>/index.md`), paged like the
 * feed; null when the id is malformed, hidden, or has no history at all — one answer for all.
 */
export async function conceptHistory(
  root: string,
  scope: ViewScope,
  id: string,
  cursor: number,
): Promise<FeedPage | null> {
  if (!isValidId(id)) return null;
  if (!scope.all && !(await scope.visibleIds([id])).has(id)) return null;
  const page = await readFeed(root, scope, { filter: { paths: candidatePaths(id) }, cursor });
  if (cursor === 0 && page.commits.length === 0 && page.next === null) return null;
  return page;
}
