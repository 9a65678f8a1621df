/**
 * What `sync_status` and /health report of one KB's sync, and the note a write result carries
 * while its push has not landed. Field names include Go v0.5's for the same facts.
 */
import type { SyncSettings, SyncState } from "../core/types.js";
import { currentBranch, unpushedCount } from "./remote-git.js";

export interface SyncStatus {
  state: SyncState;
  head: string | null;
  branch: string | null;
  unpushed: number;
  head_sha: string | null;
  unpushed_commits: number;
  push_mode: "inline" | "debounced" | "off";
  in_window_ms: number;
  out_debounce_ms: number;
  poll_ms: number;
  last_error: string | null;
  last_attempt_at: string | null;
  last_pull_at: string | null;
  conflicts: number;
}

/** What a write result carries when its push has not landed (docs/sync.md "Sync out"). */
export interface SyncNote {
  sync_state: "pending" | "failed";
  last_error: string | null;
}

/** The facts a KbSync knows, as the wire record. */
export function syncStatusRecord(f: {
  state: SyncState;
  head: string | null;
  branch: string | null;
  unpushed: number;
  active: boolean;
  settings: SyncSettings;
  lastError: string | null;
  lastAttemptAt: number | null;
  lastPullAt: number;
  conflicts: number;
}): SyncStatus {
  const { settings } = f;
  return {
    state: f.state,
    head: f.head,
    branch: f.branch,
    unpushed: f.unpushed,
    // Go v0.5's names for the same facts.
    head_sha: f.head,
    unpushed_commits: f.unpushed,
    push_mode: !f.active ? "off" : settings.outDebounceMs === 0 ? "inline" : "debounced",
    in_window_ms: settings.inWindowMs,
    out_debounce_ms: settings.outDebounceMs,
    poll_ms: settings.pollMs,
    last_error: f.lastError,
    last_attempt_at: f.lastAttemptAt ? new Date(f.lastAttemptAt).toISOString() : null,
    last_pull_at: f.lastPullAt ? new Date(f.lastPullAt).toISOString() : null,
    conflicts: f.conflicts,
  };
}

/** The `sync_status` state from what the sync knows and what git says of the branch. */
export async function syncStateOf(
  root: string,
  f: {
    enabled: boolean;
    active: boolean;
    diverged: boolean;
    conflicts: number;
    lastError: string | null;
  },
): Promise<SyncState> {
  if (!f.enabled) return "disabled";
  if (!f.active) return "no_remote";
  if (f.diverged) return "diverged";
  if (f.conflicts > 0) return "failed";
  const branch = await currentBranch(root);
  if (!branch) return "failed"; // detached: nothing can be pushed from here
  const unpushed = await unpushedCount(root, branch);
  if (f.lastError && (unpushed > 0 || !f.lastError.startsWith("push"))) return "failed";
  return unpushed > 0 ? "pending" : "clean";
}
