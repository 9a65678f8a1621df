/**
 * The status of one configured KB as /health reports it (docs/decisions.md "A KB that cannot open
 * is `unavailable`"). The reason of an unavailable KB is shown to any client of /health, so it
 * never carries an absolute server path (the log line has the full message for the operator).
 */
import type { IndexProgress } from "../search/build-status.js";

export interface KbStatus {
  readonly name: string;
  readonly status: "ok" | "unavailable";
  /** Why the KB could not be opened (only when unavailable); free of absolute paths. */
  readonly reason?: string;
  /** The index build's progress (served KBs; live: served before it is built). */
  readonly index?: IndexProgress;
  /** Open remote-sync conflicts (live; docs/sync.md "Conflicts"): the KB is `degraded` while > 0. */
  readonly conflicts?: number;
  /** Sync stopped (live): `diverged` after a force-push, `private_state` (docs/sync.md). */
  readonly syncHalt?: string | null;
}

/** Longest reason kept; error messages (a git or SQLite dump) can be long. */
const MAX_REASON = 240;

/**
 * What /health says of a KB another process holds: the lock's pid, host name and start time
 * describe the machine to anyone who can reach /health, so they stay in the server's log.
 */
export const LOCKED_REASON =
  "locked: in use by another cartographer process (the server log names it); stop that process or use it instead";

/**
 * A path-free, bounded rendering of why a KB failed to open: the KB root becomes `<kb>`, any
 * other absolute path `<path>`; prefixed with the error's code when it has a string one.
 */
export function publicReason(err: unknown, root: string): string {
  const message = err instanceof Error ? err.message : String(err);
  const code = (err as { code?: unknown } | null)?.code;
  if (code === "locked") return LOCKED_REASON;
  let text = message.split(root).join("<kb>");
  // An absolute path starts a token (nothing word-like, `.` or `>` before its first slash).
  text = text.replace(/(?<![\w.>~-])(?:[A-Za-z]:)?[\\/][^\s'"`,;()[\]{}]+/g, "<path>");
  text = text.replace(/\s+/g, " ").trim();
  if (text.length > MAX_REASON) text = `${text.slice(0, MAX_REASON - 1)}…`;
  return typeof code === "string" && !text.startsWith(code) ? `${code}: ${text}` : text;
}
