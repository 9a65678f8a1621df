/**
 * Remote sync tools (docs/sync.md "Tools"): sync_status, conflicts_list and
 * git_conflict_resolve. Conflicts are judged per concept like any read or write: a principal
 * sees (and resolves) only conflicts on concepts it can see. The read tools flush pending pushes
 * first (bounded), so what they report is what the remote has.
 */

import { isKbError, KbError } from "../../common/errors.js";
import type { KbStore } from "../../kb/core/api.js";
import { parseDocument } from "../../kb/core/frontmatter.js";
import { placementOf } from "../../kb/core/ids.js";
import type { Visibility } from "../../kb/core/types.js";
import { checkFrontmatter, validateConceptWrite } from "../../kb/core/validate.js";
import { isVisible } from "../../kb/core/visibility.js";
import { refuseTooLargeConcept } from "../../kb/store/index-read.js";
import {
  resolveConflictLocked,
  resolvedContent,
  theirsSide,
} from "../../kb/sync/conflict-resolve.js";
import {
  type ConflictEntry,
  type ResolveStrategy,
  readConflicts,
  withoutDegraded,
} from "../../kb/sync/conflicts.js";
import { currentBranch } from "../../kb/sync/remote-git.js";
import { defineTool } from "../define.js";
import { enumOf, nonEmptyStr, opt, str } from "../schema.js";
import type { ToolSpec } from "../spec.js";
import { visibleIds, visibleSyncText } from "../support/sync-visibility.js";
import type { ToolRuntime } from "../tool-runtime.js";

/** How long a sync tool waits for pending pushes before answering anyway. */
const FLUSH_MS = 5_000;

const syncStatus = defineTool({
  name: "sync_status",
  description:
    "Remote sync of the KB: state disabled|no_remote|clean|pending|failed|diverged, head, unpushed commits, last error/attempt, push mode, open conflicts.",
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
  runtime: ToolRuntime,
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

/** The type a frontmatter text gives, or undefined (none, or not parseable). */
function typeOf(text: string | null | undefined): string | undefined {
  if (typeof text !== "string") return undefined;
  try {
    const type = parseDocument(text).frontmatter.type;
    return typeof type === "string" && type !== "" ? type : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The type the resolution gives the concept (docs/decisions.md): authorized like concept_write's
 * `frontmatter.type`, so a principal allowed only notes cannot turn one into a service, with
 * `edit` (the body's frontmatter) or by picking a side that did (`ours`/`theirs`).
 */
async function resultingType(
  args: Record<string, unknown>,
  store: KbStore,
): Promise<string | undefined> {
  if (args.strategy === "edit") return typeOf(args.body as string | undefined);
  const entries = await readConflicts(store.root);
  const entry = entries.find((e) => e.concept_id === args.id);
  const theirs = entry ? await theirsSide(store.root, entries) : null;
  if (!entry || !theirs) return undefined;
  return typeOf(
    await resolvedContent(store.root, entry, args.strategy as ResolveStrategy, undefined, theirs),
  );
}

/**
 * An `edit` resolution checked as concept_write checks its file: parseable
 * frontmatter, flat keys, a type, the map's palette and required fields, the size limit.
 * `status: degraded` is taken out first (a body copied from a read of the degraded concept).
 */
async function validEdit(store: KbStore, entry: ConflictEntry, body: string): Promise<string> {
  const text = withoutDegraded(body);
  if (entry.concept_id === entry.path) return text; // not a concept (whole-KB writers only)
  const doc = parseDocument(text);
  validateConceptWrite(entry.concept_id, checkFrontmatter(doc.frontmatter), await store.maps());
  refuseTooLargeConcept(entry.concept_id, Buffer.byteLength(text));
  return text;
}

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
  storeTargets: async (args, store) => {
    const type = await resultingType(args, store).catch(() => undefined);
    return type ? [{ id: String(args.id), proposedType: type, write: true }] : [];
  },
  handler: async (args, ctx) => {
    const sync = ctx.runtime.sync;
    if (!sync?.active)
      throw new KbError(
        "not_found",
        `no conflict is registered for ${args.id}: this KB does not sync with a remote`,
      );
    const { runtime, visibility } = ctx;
    const entry = sync.conflicts().find((e) => e.concept_id === args.id);
    const body =
      args.strategy === "edit" && entry && args.body !== undefined
        ? await validEdit(runtime.store, entry, args.body)
        : args.body;
    // The pipeline holds the KB's write lock for this call (a write tool).
    let out: Awaited<ReturnType<typeof resolveConflictLocked>>;
    try {
      out = await resolveConflictLocked(sync, args.id, args.strategy, body, ctx.now());
    } catch (err) {
      // A git message may name other concepts: only those the caller may see.
      if (!isKbError(err)) throw err;
      const text = (await visibleSyncText(runtime, visibility, err.message)) ?? err.message;
      throw new KbError(err.code, text, err.details);
    }
    // Other open conflicts and the push's error, as the caller may see them.
    const open = await visibleIds(runtime, visibility, out.open);
    return {
      ...out,
      open,
      ...(out.new_conflicts
        ? { new_conflicts: await visibleIds(runtime, visibility, out.new_conflicts) }
        : {}),
      ...(out.last_error !== undefined
        ? { last_error: await visibleSyncText(runtime, visibility, out.last_error) }
        : {}),
    };
  },
});

export const syncTools: ToolSpec[] = [syncStatus, conflictsList, gitConflictResolve];
