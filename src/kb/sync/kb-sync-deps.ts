/**
 * What the sync of one KB needs from the mount that opens it: the KB's root and settings, its
 * author identity, its write lock, and how to re-index paths a pull or merge moved.
 */
import type { Logger } from "../../logger.js";
import type { GitIdentity, SyncSettings } from "../core/types.js";

export interface KbSyncDeps {
  kb: string;
  root: string;
  settings: SyncSettings;
  /** The KB's author identity (committer of rebases unless settings.committer). */
  identity: () => Promise<GitIdentity>;
  /** Runs `fn` under the KB's write lock (the store's). */
  lock: <T>(fn: () => Promise<T>) => Promise<T>;
  /** HEAD moved by a pull or a merge: re-index exactly these KB-root-relative paths. */
  onHeadMoved: (paths: string[]) => Promise<void>;
  logger: Logger;
  now?: () => number;
}
