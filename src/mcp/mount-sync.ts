/**
 * Attaches remote sync (issue 12, kb/sync/) to a mounted KB: a pull that moves HEAD re-indexes
 * exactly the concepts of the changed paths (from the diff, not a walk of the KB).
 */
import { configuredIdentity, FALLBACK_IDENTITY } from "../kb/git.js";
import { conceptIdOf } from "../kb/store-read.js";
import { KbSync } from "../kb/sync/kb-sync.js";
import type { Logger } from "../logger.js";
import type { KbRuntime } from "../tools/runtime.js";

/** Opens the KB's sync when its settings ask for it; a placeholder identity is warned about. */
export async function attachSync(runtime: KbRuntime, logger: Logger): Promise<void> {
  const { settings, store } = runtime;
  if (!settings.sync) return;
  const identity = async () =>
    settings.gitAuthor ?? (await configuredIdentity(settings.root)) ?? FALLBACK_IDENTITY;
  const sync = await KbSync.open({
    kb: settings.name,
    root: settings.root,
    settings: settings.sync,
    identity,
    lock: (fn) => store.withLock(fn),
    onHeadMoved: (paths) => reindexPaths(runtime, paths),
    logger,
  });
  runtime.sync = sync;
  if (sync.active && (await identity()).email === FALLBACK_IDENTITY.email)
    logger.warn(
      `KB '${settings.name}' syncs with a remote but commits as the placeholder ${FALLBACK_IDENTITY.name} <${FALLBACK_IDENTITY.email}>: set kbs[].git_author (or git.author) so others can tell who wrote what`,
    );
}

/** Re-indexes the concepts behind KB-root-relative `paths` (removed ones leave the index). */
export async function reindexPaths(runtime: KbRuntime, paths: readonly string[]): Promise<void> {
  const maps = await runtime.store.maps();
  const ids = new Set<string>();
  for (const path of paths) {
    const id = conceptIdOf(path, maps);
    if (id !== null) ids.add(id);
  }
  await runtime.syncIndex([...ids]);
}
