/**
 * Step 6 of the call pipeline (call-pipeline.ts): remote sync around a call
 * (docs/sync.md). Reads pull best-effort (a failure serves the local tree); writes pull under the
 * KB lock before the handler, and a write to a concept in conflict is refused. After a write's
 * commit the push is started (or done inline), and the result says when it has not landed.
 */
import { isKbError, KbError } from "../common/errors.js";
import type { Visibility } from "../kb/core/types.js";
import type { SyncNote } from "../kb/sync/sync-status.js";
import type { KbRuntime } from "../runtime/kb-runtime.js";
import type { ToolSpec } from "../tools/spec.js";
import { visibleIds, visibleSyncText } from "../tools/support/sync-visibility.js";

/** The tool that resolves conflicts must reach them (every other write to one is refused). */
const RESOLVES_CONFLICTS = "git_conflict_resolve";
/** Writes that may give a conflicted concept its reconciled version before it is resolved. */
const WRITES_RECONCILED = new Set(["concept_write", "concept_patch"]);

/**
 * Before a read: start the pull in the background when due and serve the local tree now — a
 * read never waits on the network (docs/decisions.md).
 */
export async function syncBeforeRead(runtime: KbRuntime): Promise<void> {
  runtime.sync?.pullInBackground();
}

/**
 * Before a write (caller holds the lock): pull when due; refuse a write to a conflicted concept.
 * A pull that registers conflicts answers `conflict` naming the ones the caller may see
 * (docs/decisions.md); when it sees none, the write goes on and lands locally like any write while a
 * conflict is open (its result says the push has not landed).
 */
export async function syncBeforeWrite(
  runtime: KbRuntime,
  spec: ToolSpec,
  args: Record<string, unknown>,
  visibility: Visibility,
): Promise<void> {
  const sync = runtime.sync;
  if (!sync?.active || spec.name === RESOLVES_CONFLICTS) return;
  try {
    await sync.syncInLocked();
  } catch (err) {
    if (!isKbError(err)) throw err;
    const named = err.code === "conflict" ? err.details?.conflicts : undefined;
    if (!Array.isArray(named)) {
      const text = (await visibleSyncText(runtime, visibility, err.message)) ?? err.message;
      throw text === err.message ? err : new KbError(err.code, text, err.details);
    }
    const seen = await visibleIds(runtime, visibility, named.map(String));
    if (seen.length > 0)
      throw new KbError(
        "conflict",
        `the remote changed ${seen.join(", ")} differently from this server: registered as conflicts (conflicts_list), resolve with git_conflict_resolve; both versions are kept in git`,
        { conflicts: seen },
      );
  }
  if (sync.conflictCount === 0) return;
  const open = new Set(sync.conflicts().map((c) => c.concept_id));
  const hit = (spec.targets?.(args) ?? []).map((t) => t.id).filter((id) => open.has(id));
  // Go's procedure (its kb-conflict-resolve skill): the reconciled version is written with
  // concept_write (or patched), committed on this server's side, then git_conflict_resolve
  // with strategy ours takes it (docs/decisions.md, "A `concept_write`/`concept_patch` of a
  // conflicted concept is let through").
  if (hit.length > 0 && WRITES_RECONCILED.has(spec.name)) return;
  if (hit.length > 0)
    throw new KbError(
      "conflict",
      `${hit.join(", ")} is in conflict with the remote: resolve it with git_conflict_resolve (conflicts_list shows both sides) before writing it`,
      { conflicts: hit },
    );
}

/** After a write's commit (caller holds the lock): push, or schedule it. */
export async function syncAfterCommit(
  runtime: KbRuntime,
  commitSha: string | null | undefined,
  visibility: Visibility,
): Promise<SyncNote | null> {
  if (!commitSha || !runtime.sync) return null;
  const note = await runtime.sync.afterCommitLocked();
  if (!note) return null;
  return { ...note, last_error: await visibleSyncText(runtime, visibility, note.last_error) };
}

/** The result with `sync_state` and `last_error` added when the push has not landed. */
export function withSyncNote(value: unknown, note: SyncNote | null): unknown {
  if (!note || typeof value !== "object" || value === null || Array.isArray(value)) return value;
  return { ...(value as Record<string, unknown>), ...note };
}

/**
 * A read of one concept in conflict says so (docs/sync.md "Conflicts"): `degraded: true` until
 * git_conflict_resolve; the value shown is this server's side.
 */
export function markDegraded(runtime: KbRuntime, value: unknown): unknown {
  const sync = runtime.sync;
  if (!sync || sync.conflictCount === 0) return value;
  if (typeof value !== "object" || value === null || Array.isArray(value)) return value;
  const id = (value as { id?: unknown }).id;
  if (typeof id !== "string" || !sync.conflicts().some((c) => c.concept_id === id)) return value;
  return { ...(value as Record<string, unknown>), degraded: true };
}
