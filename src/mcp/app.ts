/**
 * The composition root (docs/decisions.md "One composition root"): everything both transports
 * serve, built once — the mounts, one KbSurface per mount, the routed-surface cache, the audit sink
 * and the logger — and closed once. stdio and HTTP take a `Cartographer` and build nothing of their
 * own.
 *
 * One bad KB never stops the server (docs/decisions.md "A KB that cannot open is `unavailable`"): a
 * KB that fails to open for any reason (not a KB, held by another process, data/ outside the KB,
 * unreadable) is logged, reported as `unavailable` with a path-free reason, and every other KB is
 * served.
 */
import type { AuditSinkOptions } from "../audit/sink.js";
import type { AuditSink } from "../audit/types.js";
import type { KbSettings } from "../kb/core/types.js";
import type { Logger } from "../logger.js";
import type { ServerMetrics } from "../metrics/server-metrics.js";
import { IndexBuildScheduler } from "../runtime/index-build.js";
import { publicReason } from "../runtime/kb-status.js";
import { closeMount, type MountedKb, mountKb } from "../runtime/mount.js";
import type { EmbeddingsConfig } from "../search/embeddings/config.js";
import type { ToolSpec } from "../tools/spec.js";
import { kbLogger } from "./kb-events.js";
import type { KbSurface } from "./kb-surface.js";
import { RoutedSurfaceCache } from "./routed-cache.js";
import { surfaceForMount } from "./surface-for-mount.js";

export type { KbStatus } from "../runtime/kb-status.js";

import type { KbStatus } from "../runtime/kb-status.js";

export interface CartographerConfig {
  /** KBs to open, in order (a KB that fails to open is reported, never fatal). */
  kbs?: readonly KbSettings[];
  /** KBs already opened by the caller (tests, benchmarks); adopted: close() closes them. */
  mounts?: readonly MountedKb[];
  logger: Logger;
  /** Opens this audit log (closed by close(), after the mounts). Wins over `audit`. */
  auditLog?: Omit<AuditSinkOptions, "logger">;
  /** An audit sink the caller owns (close() leaves it open). Absent or null: no audit. */
  audit?: AuditSink | null;
  /** Background index refresh per mount (ms); 0 or absent = off. */
  indexRefreshMs?: number;
  /** Embedding provider of semantic/hybrid search (every KB); absent = keyword only. */
  embeddings?: EmbeddingsConfig;
  /**
   * Index builds run in the background, this many at once (default 2): KBs are served at once
   * (docs/decisions.md "The server answers first"); a scheduler instance is shared (tests hold its
   * slots). `false`: each KB's index is reconciled before it is served (the old behaviour).
   */
  indexBuilds?: number | false | IndexBuildScheduler;
  /** The tools a KB registers; default the registry's `toolsFor` (tests pass their own). */
  toolsFor?: (settings: KbSettings) => readonly ToolSpec[];
  /** Max routed surfaces cached (one per distinct KB binding). Default 64. */
  routedCacheSize?: number;
  /** Counts the calls and audit appends and reads every served KB's state (src/metrics). */
  metrics?: ServerMetrics;
}

/** Where an opened audit log lives, and the public key its signatures verify with. */
export interface AuditFiles {
  readonly log: string;
  readonly archiveDir?: string;
  readonly publicKeyHex?: string;
}

export interface Cartographer {
  /** The served KBs by name, in mount order (skipped and unavailable ones excluded). */
  readonly surfaces: ReadonlyMap<string, KbSurface>;
  /** One routed surface per distinct binding of served KBs. */
  readonly routed: RoutedSurfaceCache;
  /** Every configured KB with its status, in configuration order (for /health). */
  readonly kbs: readonly KbStatus[];
  readonly audit: AuditSink | null;
  /**
   * The files of the audit log this app opened (`auditLog`), for reading back (the console's
   * audit page); null when it opened none (no audit, or a sink the caller owns).
   */
  readonly auditFiles: AuditFiles | null;
  readonly logger: Logger;
  /** Why `name` is unavailable (path-free), or undefined when it is served or unknown. */
  unavailable(name: string): string | undefined;
  /** Drains and closes every mount, then the audit sink. Idempotent. */
  close(): Promise<void>;
}

/**
 * Opens every KB of `config` (a failure is logged and reported, not thrown) and builds the
 * surfaces. A KB named `routed` (it would shadow /mcp/routed, D288) and a repeated name (it
 * would make /mcp/<name> ambiguous) are skipped with one warning each.
 */
export async function createCartographer(config: CartographerConfig): Promise<Cartographer> {
  const { logger } = config;
  // Imported only when an audit log is configured: a plain stdio server starts without it.
  const ownedAudit = config.auditLog
    ? await (await import("../audit/sink.js")).openAuditSink({ ...config.auditLog, logger })
    : null;
  const unmetered = ownedAudit ?? config.audit ?? null;
  const audit = unmetered && config.metrics ? config.metrics.meterAudit(unmetered) : unmetered;
  const mounts: MountedKb[] = [...(config.mounts ?? [])];
  const statuses: KbStatus[] = [];
  const surfaces = new Map<string, KbSurface>();
  const builds =
    config.indexBuilds === false
      ? undefined
      : config.indexBuilds instanceof IndexBuildScheduler
        ? config.indexBuilds
        : new IndexBuildScheduler(config.indexBuilds);

  const serve = (mount: MountedKb) => {
    surfaces.set(
      mount.name,
      surfaceForMount(mount, {
        audit,
        logger,
        ...(config.toolsFor ? { toolsFor: config.toolsFor } : {}),
        ...(config.metrics ? { metrics: config.metrics.calls } : {}),
      }),
    );
    config.metrics?.watchKb(mount.name, mount.runtime);
    const { indexStatus } = mount;
    statuses.push({
      name: mount.name,
      status: "ok",
      // Live: /health shows how far the background build got.
      get index() {
        return indexStatus.progress;
      },
      get conflicts() {
        return mount.runtime.sync?.conflictCount ?? 0;
      },
      get syncHalt() {
        return mount.runtime.sync?.haltKind ?? null;
      },
    });
  };

  const adopted = new Set<string>();
  for (const mount of mounts)
    if (admissible(mount.name, mount.settings.root, adopted, logger)) {
      adopted.add(mount.name);
      serve(mount);
    }
  // Builds start once every KB is mounted (index-build.ts pause): with 50 KBs, mounting the
  // last one waited behind the builds of the others, and so did the initialize answer.
  builds?.pause();
  // Deferred attaches (git) wait until every KB is open and the server is about to answer.
  let mounted = () => {};
  const attachAfter = new Promise<void>((resolve) => {
    mounted = resolve;
  });
  // Checked before opening: a KB that will not be served must not take its lock or index.
  const admitted: KbSettings[] = [];
  const names = new Set(surfaces.keys());
  for (const settings of config.kbs ?? [])
    if (admissible(settings.name, settings.root, names, logger)) {
      names.add(settings.name);
      admitted.push(settings);
    }
  // Opened several at a time (file system and SQLite work, no git: mount.ts), reported and
  // served in configuration order: 50 KBs opened one by one held initialize (docs/decisions.md
  // "A served KB attaches remote sync").
  const opened = await mapLimit(admitted, MOUNT_CONCURRENCY, (settings, i) =>
    mountKb(settings, {
      buildOrder: i,
      attachAfter,
      // Its warnings also reach the sessions listening on this KB (kb-events.ts).
      logger: kbLogger(logger, settings.root),
      indexRefreshMs: config.indexRefreshMs,
      ...(builds ? { builds } : {}),
      ...(config.embeddings ? { embeddings: config.embeddings } : {}),
    }).then(
      (mount) => ({ mount }),
      (err: unknown) => ({ err }),
    ),
  );
  admitted.forEach((settings, i) => {
    const result = opened[i] as { mount: MountedKb } | { err: unknown };
    if ("mount" in result) {
      const { mount } = result;
      mounts.push(mount);
      const index = mount.stats
        ? `${mount.stats.added} added, ${mount.stats.changed} changed, ${mount.stats.removed} removed`
        : "building in the background";
      logger.info(`mounted KB '${settings.name}' (${settings.root}); index: ${index}`);
      serve(mount);
      return;
    }
    const full = result.err instanceof Error ? result.err.message : String(result.err);
    logger.error(
      `KB '${settings.name}' (${settings.root}) could not be opened and is unavailable: ${full}; the other KBs are served`,
    );
    statuses.push({
      name: settings.name,
      status: "unavailable",
      reason: publicReason(result.err, settings.root),
    });
  });

  builds?.resume();
  mounted();

  const unavailable = (name: string) =>
    statuses.find((s) => s.name === name && s.status === "unavailable")?.reason;
  let closed: Promise<void> | null = null;
  return Object.freeze({
    surfaces,
    routed: new RoutedSurfaceCache([...surfaces.values()], config.routedCacheSize, unavailable),
    kbs: Object.freeze(statuses),
    audit,
    auditFiles: auditFilesOf(config.auditLog, ownedAudit?.publicKeyHex),
    logger,
    unavailable,
    close: () => {
      closed ??= (async () => {
        // Mounts first: closeMount drains calls under way, whose audit completions need the sink.
        for (const mount of mounts) await closeMount(mount);
        await ownedAudit?.close();
      })();
      return closed;
    },
  });
}

function admissible(
  name: string,
  root: string,
  taken: ReadonlySet<string>,
  logger: Logger,
): boolean {
  if (name === "routed") {
    logger.warn(
      `KB at ${root} is named "routed", which collides with /mcp/routed: skipped (rename it)`,
    );
    return false;
  }
  if (taken.has(name)) {
    logger.warn(
      `KB name "${name}" is used twice (${root}): the second is skipped (give it another name)`,
    );
    return false;
  }
  return true;
}

/** KBs opened at once by createCartographer. */
const MOUNT_CONCURRENCY = 8;

/** `fn` over `items`, at most `limit` at once; results in the order of `items`. */
async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i] as T, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

function auditFilesOf(
  opts: CartographerConfig["auditLog"],
  publicKeyHex: string | undefined,
): AuditFiles | null {
  if (!opts) return null;
  return Object.freeze({
    log: opts.path,
    ...(opts.archiveDir !== undefined ? { archiveDir: opts.archiveDir } : {}),
    ...(publicKeyHex !== undefined ? { publicKeyHex } : {}),
  });
}
