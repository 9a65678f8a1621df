/**
 * One flush of a KB's unpushed commits: up to PUSH_ATTEMPTS pushes. A non-fast-forward push
 * (another instance pushed first) pulls and tries again; a network failure is retried at once
 * with a doubling pause when the caller waits inline, else left to the push timer; a timeout
 * is not retried inline (the remote just proved slow).
 */
import { pushBranch, type RemoteContext } from "./remote-git.js";

/** Push attempts per flush (non-fast-forward → fetch + rebase + retry). */
const PUSH_ATTEMPTS = 5;
/** Inline pushes wait this long between attempts after a network failure, doubling. */
const INLINE_BACKOFF_MS = 100;

export interface PushRun {
  ctx: RemoteContext;
  branch: string;
  /** A write waits for this flush: retry network failures now instead of on the timer. */
  inline: boolean;
  /** Called before each push. */
  attempting: () => void;
  /** A push failed with this message. */
  failed: (message: string, timedOut: boolean) => void;
  /** A push was rejected as non-fast-forward: pull, and say whether to push again. */
  pullAfterRejection: () => Promise<boolean>;
}

/** `landed`: pushed; `stopped`: a pull after a rejection halted sync; `failed`: retry later. */
export async function pushWithRetries(run: PushRun): Promise<"landed" | "stopped" | "failed"> {
  let backoff = INLINE_BACKOFF_MS;
  for (let attempt = 1; attempt <= PUSH_ATTEMPTS; attempt++) {
    run.attempting();
    const pushed = await pushBranch(run.ctx, run.branch);
    if (pushed.ok) return "landed";
    run.failed(pushed.message, pushed.timedOut === true);
    if (pushed.rejected) {
      if (!(await run.pullAfterRejection())) return "stopped";
      continue;
    }
    if (!run.inline || attempt === PUSH_ATTEMPTS || pushed.timedOut) break;
    await new Promise((r) => setTimeout(r, backoff));
    backoff *= 2;
  }
  return "failed";
}
