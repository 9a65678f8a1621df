/**
 * Remote sync of one KB (issue 12, docs/sync.md): pull before calls (sync-in), push after
 * commits (sync-out, debounced or inline), a background poll, and the conflicts registry.
 * Every git operation that moves HEAD or the tree runs under the KB's write lock: methods named
 * `…Locked` expect the caller to hold it, the others take it.
 */

import type { Logger } from "../../logger.js";
import { KbError } from "../../common/errors.js";
import type { GitIdentity } from "../core/types.js";
import { type ConflictEntry, markDegraded, registerConflict, writeConflicts } from "./conflicts.js";
import { clearSynced, haltMessage, markSynced, type PullHalt, pullHalt } from "./diverged.js";
import { originWithoutToken, storedRemoteToken } from "./embedded-token.js";
import { recoverAtOpen, trustedConflicts } from "./open-recovery.js";
import { OriginWatch } from "./origin-watch.js";
import { remoteAccess } from "./remote-access.js";
import {
  changedPaths,
  currentBranch,
  fetchOriginBounded,
  originUrl,
  pushBranch,
  REMOTE,
  type RemoteContext,
  rebaseOnto,
  revParse,
  unpushedCount,
} from "./remote-git.js";
import type { SyncSettings, SyncState } from "../core/types.js";

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

/** What a write result carries when its push has not landed (issue 12). */
export interface SyncNote {
  sync_state: "pending" | "failed";
  last_error: string | null;
}

/** Push attempts per flush (non-fast-forward → fetch + rebase + retry). */
const PUSH_ATTEMPTS = 5;
/** Inline pushes wait this long between attempts after a network failure, doubling. */
const INLINE_BACKOFF_MS = 100;
/** A failed push is retried after this long, doubling up to RETRY_MAX_MS. */
const RETRY_MIN_MS = 500;
const RETRY_MAX_MS = 10_000;

export class KbSync {
  private lastPullAt = 0;
  private lastAttemptAt: number | null = null;
  private lastError: string | null = null;
  private pullFailing = false;
  private pushTimer: NodeJS.Timeout | undefined;
  private pollTimer: NodeJS.Timeout | undefined;
  private retryMs = RETRY_MIN_MS;
  private closed = false;
  private conflicted: ConflictEntry[] = [];
  private ctx: RemoteContext;
  /** Why pulls and pushes are stopped (force-push, tracked private state), or null. */
  private halt: PullHalt | null = null;
  /** After a pull timed out, writes do not pull again before this (the poll and reads do). */
  private quietUntil = 0;
  private readonly origin: OriginWatch;

  private constructor(
    private readonly deps: KbSyncDeps,
    private url: string | null,
    /** A token moved out of the origin URL (embedded-token.ts), used without token_dir's. */
    private stored: { tokenFile: string; tokenUser: string } | null,
  ) {
    this.origin = new OriginWatch(deps.root, url);
    this.ctx = this.contextFor(url);
  }

  private contextFor(url: string | null): RemoteContext {
    const { settings } = this.deps;
    const token = settings.tokenFile ? {} : (this.stored ?? {});
    const access = remoteAccess(
      { ...settings, ...token, ...(url ? { remoteUrl: url } : {}) },
      settings.env,
    );
    return {
      root: this.deps.root,
      access,
      env: { ...settings.env, ...access.env },
      ...(url ? { url } : {}),
    };
  }

  /** `origin` added, removed or changed since the last sync: use the new one from now on. */
  private async refreshRemote(): Promise<void> {
    if (!this.deps.settings.enabled) return;
    const seen = await this.origin.current();
    if (!seen.changed) return;
    // An origin set with a token in its URL: the token moves to the helper (embedded-token.ts).
    const warn = (m: string) => this.deps.logger.warn(`KB '${this.deps.kb}': ${m}`);
    const url = await originWithoutToken(this.deps.root, seen.url, warn);
    const moved = url !== seen.url;
    if (moved) {
      await this.origin.current(); // absorbs the rewrite of .git/config
      this.stored = await storedRemoteToken(this.deps.root);
    }
    if (url === this.url && !moved) return;
    const was = this.url;
    this.url = url;
    this.ctx = this.contextFor(url);
    this.lastPullAt = 0;
    this.halt = null;
    if (was !== null) await clearSynced(this.deps.root);
    this.deps.logger.info(
      `sync of KB '${this.deps.kb}': origin ${url === null ? "removed" : was === null ? "added" : "changed"}; ${url === null ? "sync paused" : "syncing with it from now on"}`,
    );
  }

  /** A write on a detached HEAD would never be pushed: refuse it (sync on, caller holds the lock). */
  private async refuseDetached(): Promise<string> {
    const branch = await currentBranch(this.deps.root);
    if (branch) return branch;
    this.fail("the KB is on a detached HEAD: sync needs a branch");
    throw new KbError(
      "git_failed",
      "the KB's checkout is on a detached HEAD, where a write would never be pushed: check out its branch (or restart the server, which recovers an interrupted rebase) and retry",
    );
  }

  /** Reads the origin and the registry; starts the poll when sync is active. */
  static async open(deps: KbSyncDeps): Promise<KbSync> {
    const opening = {
      ...deps,
      committer: async () => deps.settings.committer ?? (await deps.identity()),
    };
    if (deps.settings.enabled) await recoverAtOpen(opening);
    const warn = (m: string) => deps.logger.warn(`KB '${deps.kb}': ${m}`);
    const url = deps.settings.enabled
      ? await originWithoutToken(deps.root, await originUrl(deps.root), warn)
      : null;
    const sync = new KbSync(deps, url, await storedRemoteToken(deps.root));
    await sync.origin.current();
    sync.conflicted = await trustedConflicts(opening);
    // The markers of open conflicts, again (a finalize interrupted after it removed them).
    await sync.markConflicting(sync.conflicted);
    // Polls whenever sync is on: an origin added later is picked up within one poll.
    if (deps.settings.enabled && deps.settings.pollMs > 0) sync.schedulePoll();
    return sync;
  }

  /** Why pulls and pushes are stopped, for /health: `diverged`, `private_state`, or null. */
  get haltKind(): PullHalt["kind"] | null {
    return this.halt?.kind ?? null;
  }

  /** Sync is on and the KB has an origin. */
  get active(): boolean {
    return this.url !== null;
  }

  get conflictCount(): number {
    return this.conflicted.length;
  }

  /** The KB's name, for operator-facing messages. */
  get kbName(): string {
    return this.deps.kb;
  }

  conflicts(): readonly ConflictEntry[] {
    return this.conflicted;
  }

  private now(): number {
    return (this.deps.now ?? Date.now)();
  }

  /** True when a call should pull first (the last good pull is older than in_window). */
  inDue(): boolean {
    if (!this.active || this.conflicted.length > 0) return false;
    const window = this.deps.settings.inWindowMs;
    return window === 0 || this.now() - this.lastPullAt >= window;
  }

  private backgroundPull: Promise<void> | null = null;

  /**
   * A read's pull (docs/sync.md "Timeouts"): started when due and never awaited, so a read is
   * served from the local tree at once whatever the remote does; one runs at a time.
   */
  pullInBackground(): void {
    if (this.backgroundPull || !this.inDue()) return;
    this.backgroundPull = this.deps
      .lock(() => this.syncInLocked())
      .catch(() => {})
      .finally(() => {
        this.backgroundPull = null;
      });
  }

  /**
   * Sync-in (caller holds the lock): fetch + rebase onto origin when due. A conflict registers
   * the conflicting concepts and throws `conflict` naming them; an unreachable remote is logged
   * once per failure burst and the call goes on with the local tree (writes land locally and
   * are pushed when the remote is back).
   */
  async syncInLocked(force = false): Promise<void> {
    await this.refreshRemote();
    if (!this.active) return;
    const branch = await this.refuseDetached();
    if (!force && (!this.inDue() || this.now() < this.quietUntil)) return;
    if (this.conflicted.length > 0 || this.halt?.kind === "diverged") return;
    const fetched = await fetchOriginBounded(this.ctx);
    if (fetched.problem) {
      if (fetched.timedOut) this.quietUntil = this.now() + this.ctx.access.timeoutMs;
      return this.pullFailed(fetched.problem);
    }
    this.quietUntil = 0;
    if (await this.halted(branch)) return;
    const rebased = await rebaseOnto(this.ctx, branch, await this.committer());
    if (!rebased.ok && rebased.conflict) {
      const ids = await this.register(rebased.files, rebased.localSha, rebased.remoteSha);
      throw new KbError(
        "conflict",
        `the remote changed ${ids.join(", ")} differently from this server: registered as conflicts (conflicts_list), resolve with git_conflict_resolve; both versions are kept in git`,
        { conflicts: ids },
      );
    }
    if (!rebased.ok) return this.pullFailed(rebased.message);
    await this.markRemoteHeld(branch);
    this.lastPullAt = this.now();
    if (this.pullFailing)
      this.deps.logger.info(`sync of KB '${this.deps.kb}': remote reachable again`);
    this.pullFailing = false;
    if (this.lastError?.startsWith("pull:")) this.lastError = null;
    if (rebased.moved)
      await this.deps.onHeadMoved(
        await changedPaths(this.deps.root, rebased.before, rebased.after),
      );
  }

  /**
   * Checks the fetched remote (diverged.ts); a halt stops pulls and pushes, is logged once and
   * shown by sync_status. A diverged KB stays halted until `kb resync`; private state tracked
   * by the remote is checked again at each sync (removing it from the remote resumes sync).
   */
  private async halted(branch: string): Promise<boolean> {
    const halt = await pullHalt(this.deps.root, branch);
    const was = this.halt;
    this.halt = halt;
    if (!halt) {
      if (was) this.lastError = null;
      return false;
    }
    const message = haltMessage(this.deps.kb, halt);
    if (this.lastError !== message)
      this.deps.logger.warn(`sync of KB '${this.deps.kb}': ${message}`);
    this.lastError = message;
    return true;
  }

  /** The remote holds origin/<branch> (pulled in) or HEAD (pushed): the force-push marker. */
  private async markRemoteHeld(branch: string, sha?: string): Promise<void> {
    const held = sha ?? (await revParse(this.deps.root, `refs/remotes/${REMOTE}/${branch}`));
    if (held) await markSynced(this.deps.root, held);
  }

  private pullFailed(reason: string): void {
    this.lastError = `pull: ${reason}`;
    if (!this.pullFailing)
      this.deps.logger.warn(
        `sync of KB '${this.deps.kb}': ${reason}; serving the local tree, writes stay local until the remote answers (further failures not logged)`,
      );
    this.pullFailing = true;
  }

  private fail(reason: string): void {
    this.lastError = reason;
  }

  /** The remote and its access, for git_conflict_resolve (conflict-resolve.ts). */
  get remote(): RemoteContext {
    return this.ctx;
  }

  /** HEAD moved outside a pull (a conflict merge): re-index these paths. */
  headMoved(paths: string[]): Promise<void> {
    return this.deps.onHeadMoved(paths);
  }

  async committer(): Promise<GitIdentity> {
    return this.deps.settings.committer ?? (await this.deps.identity());
  }

  /** Registers a failed rebase's files; returns their concept ids. */
  private async register(files: string[], localSha: string, remoteSha: string): Promise<string[]> {
    this.conflicted = registerConflict(this.conflicted, {
      files,
      localSha,
      remoteSha,
      at: new Date(this.now()),
    });
    await writeConflicts(this.deps.root, this.conflicted);
    const added = this.conflicted.filter((e) => files.includes(e.path));
    await this.markConflicting(added);
    return this.announce(added);
  }

  /** lastError and the log line for newly registered entries; returns their ids. */
  private announce(added: readonly ConflictEntry[]): string[] {
    const ids = added.map((e) => e.concept_id);
    this.lastError = `conflict: ${ids.join(", ")}`;
    this.deps.logger.warn(
      `sync of KB '${this.deps.kb}': rebase conflict on ${ids.join(", ")}; registered in .cartographer/conflicts.json, pushes paused until resolved`,
    );
    return ids;
  }

  /** `status: degraded` into the conflicting concepts' files, re-indexed. */
  private async markConflicting(entries: readonly ConflictEntry[]): Promise<void> {
    const marked = await markDegraded(this.deps.root, entries).catch(() => []);
    if (marked.length > 0) await this.deps.onHeadMoved(marked).catch(() => {});
  }

  /**
   * Replaces the registry (git_conflict_resolve); `detected` names the paths just registered
   * (a finalizing merge that met new conflicts). Emptied: the next call pulls again.
   */
  async setConflicts(entries: ConflictEntry[], detected: readonly string[] = []): Promise<void> {
    this.conflicted = entries;
    await writeConflicts(this.deps.root, entries);
    if (detected.length > 0) this.announce(entries.filter((e) => detected.includes(e.path)));
    if (entries.length === 0) {
      if (this.lastError?.startsWith("conflict")) this.lastError = null;
      this.lastPullAt = 0;
    }
  }

  /**
   * After a commit (caller holds the lock): inline mode pushes now with bounded retries;
   * debounced mode (re)starts the timer. Returns the note a write result carries when the push
   * has not landed yet, else null. Never throws: a push failure never fails the call.
   */
  async afterCommitLocked(): Promise<SyncNote | null> {
    await this.refreshRemote();
    if (!this.active || this.closed) return null;
    if (this.deps.settings.outDebounceMs === 0) {
      await this.pushLocked(true).catch((err: unknown) => {
        this.lastError = `push: ${(err as Error).message}`;
      });
    } else this.schedulePushOnce(this.deps.settings.outDebounceMs);
    return this.note();
  }

  private async note(): Promise<SyncNote | null> {
    const state = await this.state();
    return state === "pending" || state === "failed"
      ? { sync_state: state, last_error: this.lastError }
      : null;
  }

  /**
   * Starts the push timer unless one is running: the commits of a burst join the push already
   * scheduled, so a steady stream of writes cannot postpone every push (latency ≤ out_debounce).
   */
  private schedulePushOnce(ms: number): void {
    if (this.pushTimer === undefined) this.schedulePush(ms);
  }

  private schedulePush(ms: number): void {
    if (this.closed) return;
    clearTimeout(this.pushTimer);
    this.pushTimer = setTimeout(() => {
      this.pushTimer = undefined;
      void this.deps.lock(() => this.pushLocked(false)).catch(() => {});
    }, ms);
    this.pushTimer.unref();
  }

  /**
   * Pushes HEAD (caller holds the lock). Non-fast-forward → fetch + rebase + retry; a conflict
   * registers and stops. A network failure is retried inline (bounded) or on a timer.
   */
  private async pushLocked(inline: boolean): Promise<void> {
    await this.refreshRemote();
    if (!this.active || this.conflicted.length > 0 || this.halt) return;
    const branch = await currentBranch(this.deps.root);
    if (!branch) return this.fail("the KB is on a detached HEAD: sync needs a branch");
    // The remote just timed out: the write answers now, the push is retried in the background.
    if (inline && this.now() < this.quietUntil) return this.schedulePush(this.retryMs);
    if ((await unpushedCount(this.deps.root, branch)) === 0) {
      this.lastError = null;
      return;
    }
    let backoff = INLINE_BACKOFF_MS;
    for (let attempt = 1; attempt <= PUSH_ATTEMPTS; attempt++) {
      this.lastAttemptAt = this.now();
      const pushed = await pushBranch(this.ctx, branch);
      if (pushed.ok) {
        // git push updates refs/remotes/origin/<branch> itself, so `unpushed` reads 0 now.
        await this.markRemoteHeld(branch);
        this.lastError = null;
        this.retryMs = RETRY_MIN_MS;
        return;
      }
      this.lastError = `push: ${pushed.message}`;
      if (pushed.rejected) {
        try {
          await this.syncInLocked(true);
        } catch {
          return; // conflict registered: pushes pause until resolved
        }
        if (this.halt) return; // diverged or tracked private state: stopped, reported
        continue;
      }
      if (pushed.timedOut) this.quietUntil = this.now() + this.ctx.access.timeoutMs;
      if (!inline || attempt === PUSH_ATTEMPTS || pushed.timedOut) break;
      await new Promise((r) => setTimeout(r, backoff));
      backoff *= 2;
    }
    this.deps.logger.warn(
      `sync of KB '${this.deps.kb}': ${this.lastError}; retrying in the background`,
    );
    this.schedulePush(this.retryMs);
    this.retryMs = Math.min(this.retryMs * 2, RETRY_MAX_MS);
  }

  /** Pushes anything pending now (takes the lock), waiting at most `timeoutMs`. */
  async flush(timeoutMs = 5_000): Promise<void> {
    if (!this.active) return;
    clearTimeout(this.pushTimer);
    this.pushTimer = undefined;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.deps.lock(() => this.pushLocked(true)).catch(() => {}),
      new Promise((r) => {
        timer = setTimeout(r, timeoutMs);
      }),
    ]);
    clearTimeout(timer);
  }

  private schedulePoll(): void {
    if (this.closed) return;
    this.pollTimer = setTimeout(() => {
      void this.deps
        .lock(async () => {
          if (this.closed) return;
          await this.syncInLocked(true).catch(() => {});
          await this.pushLocked(false).catch(() => {});
        })
        .finally(() => this.schedulePoll());
    }, this.deps.settings.pollMs);
    this.pollTimer.unref();
  }

  async state(): Promise<SyncState> {
    if (!this.deps.settings.enabled) return "disabled";
    if (!this.active) return "no_remote";
    if (this.halt?.kind === "diverged") return "diverged";
    if (this.conflicted.length > 0) return "failed";
    const branch = await currentBranch(this.deps.root);
    if (!branch) return "failed"; // detached: nothing can be pushed from here
    const unpushed = await unpushedCount(this.deps.root, branch);
    if (this.lastError && (unpushed > 0 || !this.lastError.startsWith("push"))) return "failed";
    return unpushed > 0 ? "pending" : "clean";
  }

  async status(): Promise<SyncStatus> {
    const branch = await currentBranch(this.deps.root);
    const { settings } = this.deps;
    const head = await revParse(this.deps.root, "HEAD");
    const unpushed = this.active ? await unpushedCount(this.deps.root, branch) : 0;
    return {
      state: await this.state(),
      head,
      branch,
      unpushed,
      // Go v0.5's names for the same facts.
      head_sha: head,
      unpushed_commits: unpushed,
      push_mode: !this.active ? "off" : settings.outDebounceMs === 0 ? "inline" : "debounced",
      in_window_ms: settings.inWindowMs,
      out_debounce_ms: settings.outDebounceMs,
      poll_ms: settings.pollMs,
      last_error: this.lastError,
      last_attempt_at: this.lastAttemptAt ? new Date(this.lastAttemptAt).toISOString() : null,
      last_pull_at: this.lastPullAt ? new Date(this.lastPullAt).toISOString() : null,
      conflicts: this.conflicted.length,
    };
  }

  /** Stops the timers and pushes what is pending (bounded: SIGTERM must not hang). */
  async close(timeoutMs = 5_000): Promise<void> {
    clearTimeout(this.pollTimer);
    if (this.active && !this.closed) await this.flush(timeoutMs);
    this.closed = true;
    clearTimeout(this.pushTimer);
  }
}
