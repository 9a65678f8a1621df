/**
 * The call that made each commit, for the feed, history and commit pages (docs/decisions.md
 * "Console: commits are linked to their calls through the audit completion's `commit_sha`"):
 * the audit window first (the recent calls, already in memory), then the commit index over the
 * whole trail (audit-commits.ts) for the older ones. A call of another KB never names a commit
 * of this one (clones of one remote share shas).
 */
import type { AuditCommitIndex, AuditTrailFiles } from "./audit-commits.js";
import { auditCommitIndex } from "./audit-commits.js";
import { type AuditCall, auditWindow, completionCall } from "./audit-window.js";

/** How long a page waits for the index to catch up before answering with what it has. */
export const INDEX_WAIT_MS = 40;

export interface CommitCalls {
  /** The call whose completion recorded `sha`, when the audit holds it. */
  get(sha: string): AuditCall | undefined;
  /** Older records are still being indexed: a commit without a call may yet have one. */
  readonly indexing: boolean;
}

export const NO_CALLS: CommitCalls = { get: () => undefined, indexing: false };

/** The calls of `shas` (full shas) on `kb`; NO_CALLS when the server keeps no audit log. */
export async function commitCalls(
  files: AuditTrailFiles | null,
  kb: string,
  shas: readonly string[],
  waitMs = INDEX_WAIT_MS,
): Promise<CommitCalls> {
  if (files === null) return NO_CALLS;
  const found = new Map<string, AuditCall>();
  const window = await auditWindow(files.log);
  const missing: string[] = [];
  for (const sha of shas) {
    const call = window.callOfCommit(sha);
    if (call === undefined) missing.push(sha);
    else if (call.kb === kb) found.set(sha, call);
  }
  const index = auditCommitIndex(files);
  if (missing.length > 0 || !index.ready) await settled(index, waitMs);
  for (const [sha, line] of await index.lines(missing)) {
    const call = completionCall(line);
    if (call !== null && call.kb === kb && call.commit_sha === sha) found.set(sha, call);
  }
  return { get: (sha) => found.get(sha), indexing: !index.ready };
}

/** Starts a catch-up of the index and waits for it at most `ms`. */
async function settled(index: AuditCommitIndex, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    index.refresh(),
    new Promise<void>((r) => {
      timer = setTimeout(r, ms);
    }),
  ]);
  clearTimeout(timer);
}
