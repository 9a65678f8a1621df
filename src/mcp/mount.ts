/**
 * Mounting one KB: open its store, open (and reconcile) its search index, wrap both in the
 * KbRuntime the tools run against. Closing a mount closes its index.
 */
import type { KbStore } from "../kb/api.js";
import { openKb } from "../kb/store.js";
import type { KbSettings } from "../kb/types.js";
import type { Logger } from "../logger.js";
import type { ReconcileStats, SearchIndex } from "../search/api.js";
import { openKbIndex } from "../search/index.js";
import { KbRuntime } from "../tools/runtime.js";
import { drainCalls } from "./call-pipeline.js";

export interface MountedKb {
  readonly name: string;
  readonly settings: KbSettings;
  readonly store: KbStore;
  readonly index: SearchIndex;
  readonly runtime: KbRuntime;
  /** What reconciling the index on open changed (for the startup log). */
  readonly stats: ReconcileStats;
}

/** Opens the store and index of `settings`; the index is closed again if anything fails. */
export async function mountKb(settings: KbSettings, opts: { logger: Logger }): Promise<MountedKb> {
  const store = await openKb(settings, { logger: opts.logger });
  const { index, stats } = await openKbIndex(store, { logger: opts.logger });
  return Object.freeze({
    name: settings.name,
    settings,
    store,
    index,
    runtime: new KbRuntime(store, index),
    stats,
  });
}

/**
 * Closes the mount's index once no call on it is under way: a call whose client hung up is
 * still running (HTTP sees the response closed, not the call finished), and it must reach its
 * index update, commit and audit completion before the index (and then the audit sink) goes
 * away. New calls are refused from here on; a hung call is given up on after the grace period
 * (drainCalls). The lock is taken too, for any writer outside the
 * call pipeline. Idempotent: SQLite close on a closed handle is a no-op here.
 */
export async function closeMount(mount: MountedKb, opts: { graceMs?: number } = {}): Promise<void> {
  await drainCalls(mount.runtime, opts.graceMs);
  await mount.store.withLock(async () => mount.index.close());
}
