/**
 * Concept write tools (design.md §5, class exact / src-dst). Each handler builds a validated plan
 * through the store and applies it through the runtime; the surface holds the lock and makes
 * the one commit (`<tool>: <target>`).
 */

import { isKbError, KbError } from "../../common/errors.js";
import type { KbStore, WritePlan } from "../../kb/core/api.js";
import { isValidId } from "../../kb/core/ids.js";
import type { Frontmatter } from "../../kb/core/types.js";
import { satelliteFiles } from "../../kb/store/store-plans-delete.js";
import { conceptIdOf } from "../../kb/store/store-read.js";
import { defineTool } from "../define.js";
import { type ArgsOf, anyObj, bool, enumOf, nonEmptyStr, opt, str } from "../schema.js";
import type { ToolSpec } from "../spec.js";
import { EDIT_ARGS, editsFrom, MOVE_ARGS, movesFrom } from "../support/edits.js";
import { applyPlan, writeTarget } from "../support/write-plan.js";
import { assetTargetId } from "./assets.js";
import { supersedeTool } from "./write-supersede.js";

const IF_MATCH = opt(str("Hash from your last read; mismatch → stale_write"));

/** concept_write's arguments (also a batch `write` operation's). */
export const CONCEPT_WRITE_ARGS = {
  id: nonEmptyStr(),
  frontmatter: anyObj<Frontmatter>(),
  body: str(),
  if_match: IF_MATCH,
};

/** concept_patch's arguments (also a batch `patch` operation's). */
export const CONCEPT_PATCH_ARGS = {
  id: nonEmptyStr(),
  ...EDIT_ARGS,
  frontmatter: opt(anyObj()),
  if_match: IF_MATCH,
};

/** concept_delete's arguments (also a batch `delete` operation's). */
export const CONCEPT_DELETE_ARGS = {
  id: nonEmptyStr(),
  if_match: IF_MATCH,
  recursive: opt(bool("Also delete everything under an expanded concept's folder")),
  variant: opt(
    enumOf(["flat", "expanded"], "For an expanded_ambiguous id: the one file to delete"),
  ),
};

/** The plan of a concept_write call or batch operation. */
export async function planWrite(
  store: KbStore,
  args: ArgsOf<typeof CONCEPT_WRITE_ARGS>,
): Promise<WritePlan> {
  return store.planConceptWrite({
    id: args.id,
    frontmatter: args.frontmatter,
    body: args.body,
    ifMatch: args.if_match,
    mode: "upsert",
  });
}

/** The plan of a concept_patch call or batch operation (body edits and/or a frontmatter merge). */
export async function planPatch(
  store: KbStore,
  args: ArgsOf<typeof CONCEPT_PATCH_ARGS>,
): Promise<WritePlan> {
  const edits = editsFrom(args);
  const { frontmatter } = args;
  if (!edits && !frontmatter) {
    throw new KbError(
      "invalid_argument",
      "nothing to patch: pass old_string/new_string, edits or frontmatter",
    );
  }
  return store.planConceptPatch({ id: args.id, edits, frontmatter, ifMatch: args.if_match });
}

/** The plan of a concept_delete call or batch operation. */
export async function planDelete(
  store: KbStore,
  args: ArgsOf<typeof CONCEPT_DELETE_ARGS>,
): Promise<WritePlan> {
  return store.planConceptDelete({
    id: args.id,
    ifMatch: args.if_match,
    recursive: args.recursive === true,
    variant: args.variant,
  });
}

const conceptWrite = defineTool({
  name: "concept_write",
  contentHashAlias: true,
  description:
    "Create or replace a concept (frontmatter needs type). Errors: invalid_id, invalid_frontmatter, stale_write, validation_failed.",
  args: CONCEPT_WRITE_ARGS,
  readOnly: false,
  advanced: false,
  idempotent: true,
  resource: "exact",
  auditFields: ["id"],
  targets: writeTarget,
  handler: async (args, ctx) => applyPlan(ctx, await planWrite(ctx.runtime.store, args)),
});

const conceptNew = defineTool({
  name: "concept_new",
  contentHashAlias: true,
  // Go v0.5 argument names (docs/migrating-from-go.md).
  aliases: { vars: "variables" },
  description:
    "Create a concept from a template (see template_list), giving exactly its variables. Errors: already_exists, not_found (template), invalid_argument (variables).",
  args: {
    id: nonEmptyStr(),
    template: nonEmptyStr(),
    variables: opt(anyObj("Template variable → string")),
    frontmatter: opt(anyObj<Frontmatter>()),
  },
  readOnly: false,
  advanced: false,
  resource: "exact",
  auditFields: ["id", "template"],
  targets: writeTarget,
  handler: async (args, ctx) => {
    const variables: Record<string, string> = {};
    for (const [key, value] of Object.entries(args.variables ?? {})) {
      if (typeof value === "string") variables[key] = value;
      else if (typeof value === "number" || typeof value === "boolean")
        variables[key] = String(value);
      else
        throw new KbError("invalid_argument", `'variables.${key}' must be a string`, {
          argument: `variables.${key}`,
        });
    }
    const { id, template, frontmatter } = args;
    const plan = await ctx.runtime.store
      .planConceptNew({ id, template, variables, frontmatter })
      .catch((err: unknown) => {
        // The store's advice names its write modes; an agent has tools instead.
        if (!isKbError(err, "already_exists")) throw err;
        throw new KbError(
          "already_exists",
          `concept "${id}" already exists: pick another id, or change it with concept_patch / concept_write`,
          err.details,
        );
      });
    return applyPlan(ctx, plan);
  },
});

const conceptPatch = defineTool({
  name: "concept_patch",
  contentHashAlias: true,
  description:
    "Edit a concept: old_string/new_string or ordered edits (atomic), and/or a frontmatter merge (null removes a key; type stays). Errors: old_string_not_found, old_string_ambiguous, stale_write.",
  args: CONCEPT_PATCH_ARGS,
  readOnly: false,
  advanced: false,
  resource: "exact",
  auditFields: ["id"],
  targets: writeTarget,
  handler: async (args, ctx) => applyPlan(ctx, await planPatch(ctx.runtime.store, args)),
});

const conceptDelete = defineTool({
  name: "concept_delete",
  description:
    "Delete a concept; an expanded one with satellites needs recursive (deletes its folder). Errors: not_found, not_empty, stale_write.",
  args: CONCEPT_DELETE_ARGS,
  readOnly: false,
  advanced: false,
  destructive: true,
  resource: "exact",
  auditFields: ["id", "recursive", "variant"],
  targets: writeTarget,
  // Recursive: every file the folder holds is a write target (assets judged as asset tools do).
  storeTargets: async (args, store) => {
    if (args.recursive !== true || typeof args.id !== "string" || !isValidId(args.id)) return [];
    const maps = await store.maps();
    return (await satelliteFiles(store.root, args.id)).map((path) => ({
      id: conceptIdOf(path, maps) ?? assetTargetId(path),
      write: true,
    }));
  },
  handler: async (args, ctx) => applyPlan(ctx, await planDelete(ctx.runtime.store, args)),
});

const conceptExpand = defineTool({
  name: "concept_expand",
  description:
    "Turn concept <id>.md into folder <id>/index.md so children can live under it; id unchanged. Errors: not_found, already_exists.",
  args: { id: nonEmptyStr() },
  readOnly: false,
  advanced: false,
  resource: "exact",
  auditFields: ["id"],
  targets: writeTarget,
  handler: async (args, ctx) =>
    applyPlan(ctx, await ctx.runtime.store.planConceptExpand({ id: args.id })),
});

const conceptMove = defineTool({
  name: "concept_move",
  // Go v0.5 argument names (docs/migrating-from-go.md).
  aliases: {
    source_id: "from",
    target_id: "to",
    "moves[].source_id": "from",
    "moves[].target_id": "to",
  },
  description:
    "Move/rename concepts (from/to or moves[]), all validated first; rewrite_links (default true) updates links KB-wide. Errors: not_found, already_exists.",
  args: { ...MOVE_ARGS, rewrite_links: opt(bool()) },
  readOnly: false,
  advanced: false,
  resource: "src-dst",
  auditFields: ["from", "to", "rewrite_links"],
  // (from, to) pairs, in this order: authorization judges the destination with the source's
  // type and an expanded source's folder contents at both ends (mcp/target-facts.ts).
  targets: (args) => {
    const moves = Array.isArray(args.moves)
      ? (args.moves as { from?: unknown; to?: unknown }[])
      : [{ from: args.from, to: args.to }];
    return moves.flatMap((m) => [
      { id: String(m.from ?? ""), write: true },
      { id: String(m.to ?? ""), write: true },
    ]);
  },
  requiresWholeKb: (args) => args.rewrite_links !== false,
  handler: async (args, ctx) => {
    const plan = await ctx.runtime.store.planConceptMove({
      moves: movesFrom(args),
      rewriteLinks: args.rewrite_links !== false,
    });
    return applyPlan(ctx, plan);
  },
});

export const writeTools: ToolSpec[] = [
  conceptWrite,
  conceptNew,
  conceptPatch,
  conceptDelete,
  conceptExpand,
  conceptMove,
  supersedeTool,
];
