/**
 * Mounting one KB: open its store, open its search index, wrap both in the KbRuntime the tools run
 * against, and keep the index in step with edits made outside the server (an editor, `git pull`) by
 * a background refresh. With a build scheduler (the server) the index is reconciled in the
 * background and the mount is served at once (docs/decisions.md "The server answers first");
 * without one (tests, benchmarks) it is reconciled before mountKb returns. Closing a mount stops
 * the build and the refresh, then closes its index.
 */

import type { HeldLock } from "../common/process-lock.js";
import type { KbStore } from "../kb/core/api.js";
import type { KbSettings } from "../kb/core/types.js";
import { acquireKbLock } from "../kb/locks/kb-lock.js";
import { realPathInside } from "../kb/store/fsutil.js";
import { openKb } from "../kb/store/store.js";
import type { Logger } from "../logger.js";
import type { ReconcileStats, SearchIndex } from "../search/api.js";
import { BuildStatus } from "../search/build-status.js";
import type { EmbeddingsConfig } from "../search/embeddings/config.js";
import { openKbIndex } from "../search/index.js";
import { buildKbIndex, openKbIndexFile } from "../search/kb-index.js";
import type { SqliteSearchIndex } from "../search/sqlite-index.js";
import type { IndexBuildScheduler, ScheduledBuild } from "./index-build.js";
import { announcer, type IndexRefresh, startIndexRefresh } from "./index-refresh.js";
import { KbRuntime } from "./kb-runtime.js";
import { publicReason } from "./kb-status.js";
import { attachEmbeddings } from "./mount-embeddings.js";
import { attachSync } from "./mount-sync.js";

export interface MountedKb {
  readonly name: string;
  readonly settings: KbSettings;
  readonly store: KbStore;
  readonly index: SearchIndex;
  readonly runtime: KbRuntime;
  /**
   * What reconciling the index on open changed (for the startup log); absent when the index is
   * built in the background (the build logs its own line when it ends).
   */
  readonly stats?: ReconcileStats;
  /** How far the index build got (ready at once when reconciled before mountKb returned). */
  readonly indexStatus: BuildStatus;
  /** The background index refresh; absent when disabled (additive). */
  readonly refresh?: IndexRefresh;
  /** The KB's lock across processes (kb-lock.ts), released by closeMount. */
  readonly processLock?: HeldLock;
}

export interface MountOptions {
  logger: Logger;
  /**
   * Re-reconcile the index with the files every this many ms (config `index.refresh_seconds`);
   * 0 or absent disables the background refresh.
   */
  indexRefreshMs?: number;
  /**
   * Builds the index in the background on this scheduler and returns at once (the server);
   * absent: the index is reconciled before mountKb returns.
   */
  builds?: IndexBuildScheduler;
  /** Among builds waiting for a slot, a lower one starts first (the KB's place in the config). */
  buildOrder?: number;
  /**
   * With `builds`: sync and embeddings attach on the first call, or ATTACH_DELAY_MS after this
   * resolves (default at once: after mountKb returns).
   */
  attachAfter?: Promise<void>;
  /** Embedding provider of semantic search (docs/search.md); absent = keyword only. */
  embeddings?: EmbeddingsConfig;
}

/** Opens the store and index of `settings`; the index is closed again if anything fails. */
export async function mountKb(settings: KbSettings, opts: MountOptions): Promise<MountedKb> {
  // A data/ (or data/index.md) leading outside the KB through a symlink would serve someone
  // else's files: refused here, so the KB is reported unavailable (docs/decisions.md "A KB that
  // cannot open is `unavailable`").
  await realPathInside(settings.root, "data/index.md");
  const store = await openKb(settings, { logger: opts.logger });
  // A second process on the same KB is refused (KbError `locked`, holder named) before it
  // touches the index or git (docs/decisions.md "One writing process per KB").
  const processLock = await acquireKbLock(settings, "serve", opts.logger);
  if (opts.builds) {
    const mount = mountInBackground(settings, store, processLock, opts, opts.builds);
    // Remote sync (a `git remote` process per KB) and embeddings attach after the mount is
    // served: initialize and tools/list need neither, and 50 KBs spent seconds here before the
    // initialize answer (docs/decisions.md "A served KB attaches remote sync"). The first tool
    // call on the KB starts the attach and waits for it (call-pipeline.ts); without calls it starts a moment later (sync polls).
    const attach = deferAttach(mount.runtime, settings, opts);
    mount.runtime.ready = attach.ready;
    attaches.set(mount, attach);
    return mount;
  }
  const { index, stats } = await openKbIndex(store, { logger: opts.logger }).catch(
    async (err: unknown) => {
      await processLock.release();
      throw err;
    },
  );
  const indexStatus = new BuildStatus("ready");
  const indexed = index.count();
  indexStatus.set("ready", indexed, indexed);
  index.warmSearch(); // the search memories, as after a background build (search-memory.ts)
  const runtime = new KbRuntime(store, index, indexStatus);
  const intervalMs = opts.indexRefreshMs ?? 0;
  const refresh =
    intervalMs > 0
      ? startIndexRefresh(store, index, {
          intervalMs,
          logger: opts.logger,
          kb: settings.name,
          onIndexed: announcer(runtime),
        })
      : undefined;
  await attachSync(runtime, opts.logger);
  if (opts.embeddings)
    await attachEmbeddings(runtime, opts.embeddings, { ...opts, kb: settings.name });
  return Object.freeze({
    name: settings.name,
    settings,
    store,
    index,
    indexStatus,
    runtime,
    stats,
    ...(refresh ? { refresh } : {}),
    processLock,
  });
}

/** How long after mounting a KB its deferred attach starts when no call has started it. */
export const ATTACH_DELAY_MS = 500;

interface DeferredAttach {
  /** Starts the attach (once) and resolves when it is done; rejects with its failure. */
  ready(): Promise<void>;
  /** Never starts it from now on; waits for one under way. */
  cancel(): Promise<void>;
}

/**
 * Attaches sync and embeddings on first need or ATTACH_DELAY_MS after `attachAfter` (every KB is
 * mounted: the first ones' attaches must not run while the last ones open). A failure is logged and
 * then answered by every call on the KB (never left an unhandled rejection).
 */
function deferAttach(runtime: KbRuntime, settings: KbSettings, opts: MountOptions): DeferredAttach {
  let attached: Promise<void> | undefined;
  let cancelled = false;
  const ready = () => {
    if (!attached) {
      attached = (async () => {
        await attachSync(runtime, opts.logger);
        if (opts.embeddings)
          await attachEmbeddings(runtime, opts.embeddings, { ...opts, kb: settings.name });
      })();
      attached.catch((err: unknown) =>
        opts.logger.error(
          `KB '${settings.name}': remote sync or semantic search could not start; its tool calls fail until a restart: ${(err as Error).message ?? err}`,
        ),
      );
    }
    return attached;
  };
  let timer: NodeJS.Timeout | undefined;
  void (opts.attachAfter ?? Promise.resolve()).then(() => {
    if (cancelled) return;
    timer = setTimeout(() => void ready().catch(() => {}), ATTACH_DELAY_MS);
    timer.unref();
  });
  return {
    ready,
    cancel: async () => {
      cancelled = true;
      clearTimeout(timer);
      await attached?.catch(() => {});
    },
  };
}

/** Deferred attaches of served mounts, for closeMount. */
const attaches = new WeakMap<MountedKb, DeferredAttach>();

/** Background builds of mounts, for closeMount (a MountedKb stays a plain frozen value). */
const builds = new WeakMap<
  MountedKb,
  { build: ScheduledBuild; refresh: () => IndexRefresh | undefined }
>();

/**
 * Opens the index file at first use (a missing or damaged one opens empty) and schedules its
 * reconcile; the refresh timer starts once the build has ended, so the two never run together.
 */
function mountInBackground(
  settings: KbSettings,
  store: KbStore,
  processLock: HeldLock,
  opts: MountOptions,
  scheduler: IndexBuildScheduler,
): MountedKb {
  const { logger } = opts;
  // Opened on first use (the build, a search): creating 50 fresh index files was most of the
  // CPU before a 50-KB server's initialize answer (docs/decisions.md "A served KB's SQLite index
  // file opens at its first use"). An open that fails fails the build (state `failed`) and the
  // calls that need the index, not the mount.
  const index = onFirstUse(() => openKbIndexFile(store, { logger }));
  const indexStatus = new BuildStatus("queued");
  const runtime = new KbRuntime(store, index, indexStatus);
  const intervalMs = opts.indexRefreshMs ?? 0;
  let refresh: IndexRefresh | undefined;
  const build = scheduler.schedule(async (signal) => {
    const started = Date.now();
    indexStatus.set("building");
    try {
      const stats = await buildKbIndex(store, index, {
        signal,
        logger,
        reader: scheduler.reader,
        onProgress: (done, total) => indexStatus.set("building", done, total),
      });
      const { total } = indexStatus.progress;
      index.shrinkMemory(); // 50 KBs' build caches add up (docs/benchmarks.md)
      indexStatus.set("ready", total, total);
      logger.info(
        `index of KB '${settings.name}' ready in ${Date.now() - started} ms: ${stats.added} added, ${stats.changed} changed, ${stats.removed} removed`,
      );
      index.warmSearch(); // the search memories, built on a worker (search-memory.ts)
      // The quick_check skipped at open, on a worker thread once searches are served: a damaged
      // file is moved aside and rebuilt (searches meanwhile answer from the damaged one or err).
      await index.checkIntegrity();
      if (index.damaged) {
        indexStatus.set("building", 0, 0);
        await buildKbIndex(store, index, {
          signal,
          onProgress: (done, all) => indexStatus.set("building", done, all),
        });
        indexStatus.set("ready", indexStatus.progress.total, indexStatus.progress.total);
      }
    } catch (err) {
      if (signal.aborted) return; // closing: no refresh, no failure to report
      const { done, total } = indexStatus.progress;
      indexStatus.set("failed", done, total, publicReason(err, settings.root));
      logger.warn(
        `index build of KB '${settings.name}' failed: ${(err as Error).message ?? err}; searches answer from what is indexed${intervalMs > 0 ? ", the refresh retries" : "; run the reindex tool"}`,
      );
    }
    if (intervalMs > 0)
      refresh = startIndexRefresh(store, index, {
        intervalMs,
        logger,
        kb: settings.name,
        onIndexed: announcer(runtime),
      });
  }, opts.buildOrder);
  const mount: MountedKb = Object.freeze({
    name: settings.name,
    settings,
    store,
    index,
    indexStatus,
    runtime,
    processLock,
  });
  builds.set(mount, { build, refresh: () => refresh });
  return mount;
}

/**
 * A SqliteSearchIndex that opens the real one at its first use; `close()` before that opens
 * nothing. Methods are bound to the real index (its private fields stay reachable).
 */
function onFirstUse(open: () => SqliteSearchIndex): SqliteSearchIndex {
  let real: SqliteSearchIndex | undefined;
  return new Proxy({} as SqliteSearchIndex, {
    get(_, prop) {
      if (prop === "close" && !real) return () => {};
      real ??= open();
      const value = Reflect.get(real, prop, real);
      return typeof value === "function" ? value.bind(real) : value;
    },
    has: (_, prop) => {
      real ??= open();
      return prop in real;
    },
  });
}

/**
 * Closes the mount's index once no call on it is under way: a call whose client hung up is
 * still running (HTTP sees the response closed, not the call finished), and it must reach its
 * index update, commit and audit completion before the index (and then the audit sink) goes
 * away. New calls are refused from here on; a hung call is given up on after the grace period
 * (CallTracker.drain). The background refresh is stopped, a run under way awaited. The lock is taken
 * too, for any writer outside the call pipeline. Idempotent: SQLite close on a closed handle
 * is a no-op here.
 */
export async function closeMount(mount: MountedKb, opts: { graceMs?: number } = {}): Promise<void> {
  await mount.runtime.calls.drain(opts.graceMs);
  await attaches.get(mount)?.cancel(); // an attach under way ends before sync closes
  // Pending pushes leave before the KB closes (bounded: shutdown must not hang).
  await mount.runtime.sync?.close();
  const background = builds.get(mount);
  await background?.build.cancel();
  await background?.refresh()?.stop();
  await mount.refresh?.stop();
  await mount.runtime.embeddings?.close();
  await mount.store.withLock(async () => mount.index.close());
  await mount.processLock?.release();
}
