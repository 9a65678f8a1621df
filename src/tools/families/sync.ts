/**
 * Remote sync tools (issue 12, docs/sync.md): sync_status, conflicts_list and
 * git_conflict_resolve. Conflicts are judged per concept like any read or write: a principal
 * sees (and resolves) only conflicts on concepts it can see. The read tools flush pending pushes
 * first (bounded), so what they report is what the remote has.
 */
import { KbError } from "../../kb/errors.js";
import { placementOf } from "../../kb/ids.js";
import { resolveConflictLocked } from "../../kb/sync/conflict-resolve.js";
import type { ConflictEntry } from "../../kb/sync/conflicts.js";
import { currentBranch } from "../../kb/sync/remote-git.js";
import type { Visibility } from "../../kb/types.js";
import { isVisible } from "../../kb/visibility.js";
import { defineTool } from "../define.js";
import type { KbRuntime } from "../runtime.js";
import { enumOf, nonEmptyStr, opt, str } from "../schema.js";
import type { ToolSpec } from "../spec.js";

/** How long a sync tool waits for pending pushes before answering anyway. */
const FLUSH_MS = 5_000;

const syncStatus = defineTool({
  name: "sync_status",
  description:
    "Remote sync of the KB: state disabled|no_remote|clean|pending|failed, head, unpushed commits, last error/attempt, push mode, open conflicts.",
  readOnly: true,
  advanced: false,
  idempotent: true,
  resource: "whole",
  auditFields: [],
  handler: async (_args, ctx) => {
    const sync = ctx.runtime.sync;
    if (!sync) {
      const state = ctx.runtime.settings.sync?.enabled === false ? "disabled" : "no_remote";
      return { state, conflicts: 0 };
    }
    await sync.flush(FLUSH_MS);
    return sync.status();
  },
});

/** The entries `visibility` may see (the concept's current placement and type decide). */
async function visibleConflicts(
  runtime: KbRuntime,
  visibility: Visibility,
): Promise<ConflictEntry[]> {
  const entries = runtime.sync?.conflicts() ?? [];
  if (visibility.all) return [...entries];
  const maps = await runtime.store.maps();
  const out: ConflictEntry[] = [];
  for (const e of entries) {
    if (e.concept_id === e.path) continue; // not a concept: whole-KB readers only
    const doc = await runtime.store.tryReadConcept(e.concept_id).catch(() => null);
    const placement = doc ?? placementOf(e.concept_id, maps);
    if (isVisible(visibility, placement, doc?.type ?? null)) out.push(e);
  }
  return out;
}

/** Go's procedure, which works here too (sync-step.ts lets the reconciled write through). */
const CONFLICT_GUIDANCE =
  "Read the concept with concept_read, reconcile it, write it with concept_write without status: degraded, then call git_conflict_resolve with strategy ours (or pass the whole file with strategy edit).";

const conflictsList = defineTool({
  name: "conflicts_list",
  description:
    "Concepts whose local and remote edits could not be rebased (degraded until resolved): id, path, local_sha, remote_sha, branch, files, detected_at, resolved, guidance.",
  readOnly: true,
  advanced: false,
  idempotent: true,
  resource: "collection",
  auditFields: [],
  handler: async (_args, ctx) => {
    await ctx.runtime.sync?.flush(FLUSH_MS);
    const entries = await visibleConflicts(ctx.runtime, ctx.visibility);
    const visiblePaths = new Set(entries.map((e) => e.path));
    // Go's fields too (its kb-conflict-resolve skill reads them): branch, guidance.
    const branch = entries.length > 0 ? await currentBranch(ctx.runtime.store.root) : null;
    return {
      conflicts: entries.map((e) => ({
        concept_id: e.concept_id,
        path: e.path,
        local_sha: e.local_sha,
        remote_sha: e.remote_sha,
        // Other files of the same rebase are named only when the caller may see them.
        files: e.files.filter((f) => visiblePaths.has(f)),
        detected_at: e.detected_at,
        resolved: e.resolution !== undefined,
        branch: branch ?? "",
        guidance: CONFLICT_GUIDANCE,
      })),
      total: entries.length,
    };
  },
});

const gitConflictResolve = defineTool({
  name: "git_conflict_resolve",
  description:
    "Resolve one registered conflict: strategy ours (this server's version), theirs (the remote's) or edit (body = the whole file). When none is left open: one merge commit, then push.",
  readOnly: false,
  advanced: false,
  resource: "exact",
  auditFields: ["id", "strategy"],
  // Go v0.5 names the concept `concept_id` (docs/migrating-from-go.md).
  aliases: { concept_id: "id" },
  args: {
    id: nonEmptyStr("Concept id from conflicts_list"),
    strategy: enumOf(["ours", "theirs", "edit"] as const),
    body: opt(str("With strategy edit: the whole file (frontmatter and body)")),
  },
  targets: (args) => [{ id: String(args.id), write: true }],
  handler: async (args, ctx) => {
    const sync = ctx.runtime.sync;
    if (!sync?.active)
      throw new KbError(
        "not_found",
        `no conflict is registered for ${args.id}: this KB does not sync with a remote`,
      );
    // The pipeline holds the KB's write lock for this call (a write tool).
    return resolveConflictLocked(sync, args.id, args.strategy, args.body, ctx.now());
  },
});

export const syncTools: ToolSpec[] = [syncStatus, conflictsList, gitConflictResolve];
