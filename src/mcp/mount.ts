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
 * Closes the mount's index once no write holds the KB lock: a write whose client hung up is
 * still running (HTTP sees the response closed, not the call finished), and it must reach its
 * index update and commit before the index goes away. Idempotent: SQLite close on a closed
 * handle is a no-op here.
 */
export async function closeMount(mount: MountedKb): Promise<void> {
  await mount.store.withLock(async () => mount.index.close());
}
