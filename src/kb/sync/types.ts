/**
 * Remote sync settings of one KB (issue 12, docs/sync.md), resolved by the CLI config layer.
 * Pure: no I/O.
 */
import type { GitIdentity } from "../types.js";

export interface SyncSettings {
  /** `git.sync`: false turns sync off even when the KB has an `origin`. */
  enabled: boolean;
  /** Pull before a call when the last successful pull is older than this (0 = every call). */
  inWindowMs: number;
  /** Push this long after the last commit of a burst (0 = inline, with bounded retries). */
  outDebounceMs: number;
  /** Background fetch/pull (and push of anything pending) every this many ms; 0 = off. */
  pollMs: number;
  /** Every git network command is killed after this long (`git.network_timeout`; 0 = never). */
  networkTimeoutMs?: number;
  /** The environment git's network commands start from (the server's own, from the CLI). */
  env: Readonly<Record<string, string | undefined>>;
  /** Per-KB SSH key: GIT_SSH_COMMAND with `-i` and StrictHostKeyChecking=yes. */
  sshKey?: string;
  /** known_hosts file for the SSH key (UserKnownHostsFile). */
  knownHosts?: string;
  /** `<git.token_dir>/<kb>.token`: HTTPS password read by a credential helper at run time. */
  tokenFile?: string;
  /** Committer of rebases and merge commits (default: the KB's author identity). */
  committer?: GitIdentity;
}

/** `sync_status` states (issue 12); `diverged`: the remote was force-pushed (diverged.ts). */
export type SyncState = "disabled" | "no_remote" | "clean" | "pending" | "failed" | "diverged";

/** The defaults of issue 12 (seconds in the config). */
export const DEFAULT_IN_WINDOW_MS = 30_000;
export const DEFAULT_OUT_DEBOUNCE_MS = 3_000;
export const DEFAULT_POLL_MS = 60_000;
