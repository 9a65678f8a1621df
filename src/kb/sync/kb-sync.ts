/**
 * Remote sync of one KB (docs/sync.md): pull before calls (sync-in), push after commits
 * (sync-out, debounced or inline; push-timer.ts), a background poll, and the conflicts registry
 * (conflict-book.ts) over the remote link (remote-link.ts).
 * Every git operation that moves HEAD or the tree runs under the KB's write lock: methods named
 * `…Locked` expect the caller to hold it, the others take it.
 */

import { KbError } from "../../common/errors.js";
import type { GitIdentity, SyncState } from "../core/types.js";
import { ConflictBook } from "./conflict-book.js";
import type { ConflictEntry } from "./conflicts.js";
import { clearSynced, haltMessage, markSynced, type PullHalt, pullHalt } from "./diverged.js";
import type { KbSyncDeps } from "./kb-sync-deps.js";
import { recoverAtOpen, trustedConflicts } from "./open-recovery.js";
import { pushWithRetries } from "./push-attempts.js";
import { PushTimer, RepeatTimer } from "./push-timer.js";
import {
  changedPaths,
  currentBranch,
  fetchOriginBounded,
  REMOTE,
  type RemoteContext,
  rebaseOnto,
  revParse,
  unpushedCount,
} from "./remote-git.js";
import { RemoteLink } from "./remote-link.js";
import { type SyncNote, type SyncStatus, syncStateOf, syncStatusRecord } from "./sync-status.js";

export class KbSync {
  private lastPullAt = 0;
  private lastPushLandedAt = 0;
  private lastAttemptAt: number | null = null;
  private lastError: string | null = null;
  private pullFailing = false;
  /** The background fetch/pull and push of anything pending, every `git.poll` (RepeatTimer, push-timer.ts). */
  private readonly poll: RepeatTimer;
  private closed = false;
  private readonly book: ConflictBook;
  private readonly pushTimer: PushTimer;
  /** Why pulls and pushes are stopped (force-push, tracked private state), or null. */
  private halt: PullHalt | null = null;
  /** After a pull timed out, writes do not pull again before this (the poll and reads do). */
  private quietUntil = 0;

  private constructor(
    private readonly deps: KbSyncDeps,
    private readonly link: RemoteLink,
  ) {
    this.book = new ConflictBook(deps);
    this.poll = new RepeatTimer(deps.settings.pollMs, () =>
      this.deps.lock(async () => {
        if (this.closed) return;
        await this.syncInLocked(true).catch(() => {});
        await this.pushLocked(false).catch(() => {});
      }),
    );
    this.pushTimer = new PushTimer(() =>
      this.deps.lock(() => this.pushLocked(false)).catch(() => {}),
    );
  }

  private get ctx(): RemoteContext {
    return this.link.ctx;
  }

  /** `origin` added, removed or changed since the last sync: use the new one from now on. */
  private async refreshRemote(): Promise<void> {
    const changed = await this.link.refresh();
    if (!changed) return;
    const url = this.link.url;
    this.lastPullAt = 0;
    this.halt = null;
    if (changed.was !== null) await clearSynced(this.deps.root);
    this.deps.logger.info(
      `sync of KB '${this.deps.kb}': origin ${url === null ? "removed" : changed.was === null ? "added" : "changed"}; ${url === null ? "sync paused" : "syncing with it from now on"}`,
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
    const sync = new KbSync(deps, await RemoteLink.open(deps));
    await sync.book.load(await trustedConflicts(opening));
    // Polls whenever sync is on: an origin added later is picked up within one poll.
    if (deps.settings.enabled && deps.settings.pollMs > 0) sync.poll.start();
    return sync;
  }

  /** Why pulls and pushes are stopped, for /health: `diverged`, `private_state`, or null. */
  get haltKind(): PullHalt["kind"] | null {
    return this.halt?.kind ?? null;
  }

  /** Sync is on and the KB has an origin. */
  get active(): boolean {
    return this.link.url !== null;
  }

  /** When a push last landed (ms since the epoch), 0 = never: the metrics' push age. */
  get lastPushAt(): number {
    return this.lastPushLandedAt;
  }

  get conflictCount(): number {
    return this.book.count;
  }

  /** The KB's name, for operator-facing messages. */
  get kbName(): string {
    return this.deps.kb;
  }

  conflicts(): readonly ConflictEntry[] {
    return this.book.all;
  }

  private now(): number {
    return (this.deps.now ?? Date.now)();
  }

  /** True when a call should pull first (the last good pull is older than in_window). */
  inDue(): boolean {
    if (!this.active || this.book.count > 0) return false;
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
    if (this.book.count > 0 || this.halt?.kind === "diverged") return;
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
    const ids = await this.book.register(files, localSha, remoteSha, new Date(this.now()));
    this.lastError = `conflict: ${ids.join(", ")}`;
    return ids;
  }

  /**
   * Replaces the registry (git_conflict_resolve); `detected` names the paths just registered
   * (a finalizing merge that met new conflicts). Emptied: the next call pulls again.
   */
  async setConflicts(entries: ConflictEntry[], detected: readonly string[] = []): Promise<void> {
    const announced = await this.book.replace(entries, detected);
    if (announced) this.lastError = `conflict: ${announced.join(", ")}`;
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
    } else this.pushTimer.once(this.deps.settings.outDebounceMs);
    return this.note();
  }

  private async note(): Promise<SyncNote | null> {
    const state = await this.state();
    return state === "pending" || state === "failed"
      ? { sync_state: state, last_error: this.lastError }
      : null;
  }

  /**
   * Pushes HEAD (caller holds the lock). Non-fast-forward → fetch + rebase + retry; a conflict
   * registers and stops. A network failure is retried inline (bounded) or on a timer.
   */
  private async pushLocked(inline: boolean): Promise<void> {
    await this.refreshRemote();
    if (!this.active || this.book.count > 0 || this.halt) return;
    const branch = await currentBranch(this.deps.root);
    if (!branch) return this.fail("the KB is on a detached HEAD: sync needs a branch");
    // The remote just timed out: the write answers now, the push is retried in the background.
    if (inline && this.now() < this.quietUntil) return this.pushTimer.retrySoon();
    if ((await unpushedCount(this.deps.root, branch)) === 0) {
      this.lastError = null;
      return;
    }
    const outcome = await pushWithRetries({
      ctx: this.ctx,
      branch,
      inline,
      attempting: () => {
        this.lastAttemptAt = this.now();
      },
      failed: (message, timedOut) => {
        this.lastError = `push: ${message}`;
        if (timedOut) this.quietUntil = this.now() + this.ctx.access.timeoutMs;
      },
      pullAfterRejection: async () => {
        try {
          await this.syncInLocked(true);
        } catch {
          return false; // conflict registered: pushes pause until resolved
        }
        return !this.halt; // diverged or tracked private state: stopped, reported
      },
    });
    if (outcome === "landed") {
      this.lastPushLandedAt = this.now();
      // git push updates refs/remotes/origin/<branch> itself, so `unpushed` reads 0 now.
      await this.markRemoteHeld(branch);
      this.lastError = null;
      this.pushTimer.landed();
      return;
    }
    if (outcome === "stopped") return;
    this.deps.logger.warn(
      `sync of KB '${this.deps.kb}': ${this.lastError}; retrying in the background`,
    );
    this.pushTimer.retryLater();
  }

  /** Pushes anything pending now (takes the lock), waiting at most `timeoutMs`. */
  async flush(timeoutMs = 5_000): Promise<void> {
    if (!this.active) return;
    this.pushTimer.cancel();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.deps.lock(() => this.pushLocked(true)).catch(() => {}),
      new Promise((r) => {
        timer = setTimeout(r, timeoutMs);
      }),
    ]);
    clearTimeout(timer);
  }

  async state(): Promise<SyncState> {
    return syncStateOf(this.deps.root, {
      enabled: this.deps.settings.enabled,
      active: this.active,
      diverged: this.halt?.kind === "diverged",
      conflicts: this.book.count,
      lastError: this.lastError,
    });
  }

  async status(): Promise<SyncStatus> {
    const branch = await currentBranch(this.deps.root);
    return syncStatusRecord({
      state: await this.state(),
      head: await revParse(this.deps.root, "HEAD"),
      branch,
      unpushed: this.active ? await unpushedCount(this.deps.root, branch) : 0,
      active: this.active,
      settings: this.deps.settings,
      lastError: this.lastError,
      lastAttemptAt: this.lastAttemptAt,
      lastPullAt: this.lastPullAt,
      conflicts: this.book.count,
    });
  }

  /** Stops the timers and pushes what is pending (bounded: SIGTERM must not hang). */
  async close(timeoutMs = 5_000): Promise<void> {
    this.poll.stop();
    if (this.active && !this.closed) await this.flush(timeoutMs);
    this.closed = true;
    this.pushTimer.close();
  }
}
