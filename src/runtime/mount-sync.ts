/**
 * Attaches remote sync (docs/sync.md, kb/sync/) to a mounted KB: a pull that moves HEAD re-indexes
 * exactly the concepts of the changed paths (from the diff, not a walk of the KB).
 */
import { stat } from "node:fs/promises";
import { join } from "node:path";
import type { ConceptDoc } from "../kb/core/types.js";
import { configuredIdentity, FALLBACK_IDENTITY } from "../kb/git/git.js";
import { conceptIdOf } from "../kb/store/store-read.js";
import { KbSync } from "../kb/sync/kb-sync.js";
import type { Logger } from "../logger.js";
import type { FileStat } from "../search/rows.js";
import type { KbRuntime } from "./kb-runtime.js";

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
    onHeadMoved: (paths) => reindexPaths(runtime, paths, logger),
    logger,
  });
  if (sync.active && !settings.autocommit) {
    await sync.close();
    // An uncommitted tree under autostash rebases serves conflict markers (docs/decisions.md).
    throw new Error(
      `git.autocommit: false cannot be combined with remote sync (KB '${settings.name}' has an origin): set git.autocommit: true, or git.sync: false (CARTOGRAPHER_GIT_SYNC=false) to serve it without syncing`,
    );
  }
  runtime.sync = sync;
  if (sync.active && (await identity()).email === FALLBACK_IDENTITY.email)
    logger.warn(
      `KB '${settings.name}' syncs with a remote but commits as the placeholder ${FALLBACK_IDENTITY.name} <${FALLBACK_IDENTITY.email}>: set kbs[].git_author (or git.author) so others can tell who wrote what`,
    );
}

/**
 * Re-indexes the concepts behind KB-root-relative `paths` (removed ones leave the index). A
 * path the store refuses (a symlink, a path outside the KB) is skipped and logged, and its
 * concept leaves the index; the rest of the pull is indexed.
 */
export async function reindexPaths(
  runtime: KbRuntime,
  paths: readonly string[],
  logger?: Logger,
): Promise<void> {
  const maps = await runtime.store.maps();
  const ids = new Set<string>();
  for (const path of paths) {
    const id = conceptIdOf(path, maps);
    if (id !== null) ids.add(id);
  }
  const list = [...ids];
  const docs = await Promise.all(
    list.map((id) =>
      runtime.store.tryReadConcept(id).catch((err: unknown) => {
        logger?.warn(
          `KB '${runtime.settings.name}': pulled concept '${id}' is not indexed: ${(err as Error).message}`,
        );
        return null;
      }),
    ),
  );
  const { index } = runtime;
  // One transaction without a savepoint per row (FTS5 writes one segment per savepoint, the
  // 6x slower path of sqlite-index.ts); the stat lets the next open skip these files.
  const entries: { doc: ConceptDoc; stat: FileStat }[] = [];
  for (const doc of docs) {
    if (!doc) continue;
    const st = await stat(join(runtime.store.root, doc.path)).catch(() => null);
    if (st) entries.push({ doc, stat: { mtimeMs: st.mtimeMs, size: st.size } });
    else index.upsert(doc);
  }
  index.upsertMany(entries);
  list.forEach((id, i) => {
    if (!docs[i]) index.remove(id);
  });
  runtime.announceIndexed(list, docs);
}
