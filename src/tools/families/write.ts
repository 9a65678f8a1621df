/**
 * Concept write tools (DESIGN §5, class exact / src-dst). Each handler builds a validated plan
 * through the store and applies it through the runtime; the surface holds the lock and makes
 * the one commit (`<tool>: <target>`).
 */
import { isKbError, KbError } from "../../kb/errors.js";
import { isValidId } from "../../kb/ids.js";
import { satelliteFiles } from "../../kb/store-plans-delete.js";
import { conceptIdOf } from "../../kb/store-read.js";
import { anyObj, arr, bool, enumOf, nested, obj, str } from "../schema-legacy.js";
import type { ToolSpec } from "../spec.js";
import { assetTargetId } from "./assets.js";
import {
  applyPlan,
  EDIT_PROPS,
  editsFrom,
  frontmatterArg,
  movesFrom,
  optRecord,
  optStr,
  reqStr,
  writeTarget,
} from "./write-args.js";
import { supersedeTool } from "./write-supersede.js";

const IF_MATCH = str("Hash from your last read; mismatch → stale_write");

const conceptWrite: ToolSpec = {
  name: "concept_write",
  description:
    "Create or replace a concept (frontmatter needs type). Errors: invalid_id, invalid_frontmatter, stale_write, validation_failed.",
  inputSchema: obj({ id: str(), frontmatter: anyObj(), body: str(), if_match: IF_MATCH }, [
    "id",
    "frontmatter",
    "body",
  ]),
  readOnly: false,
  advanced: false,
  idempotent: true,
  resource: "exact",
  auditFields: ["id"],
  targets: writeTarget,
  handler: async (args, ctx) => {
    const plan = await ctx.runtime.store.planConceptWrite({
      id: reqStr(args, "id"),
      frontmatter: frontmatterArg(args) ?? {},
      body: typeof args.body === "string" ? args.body : "",
      ifMatch: optStr(args, "if_match"),
      mode: "upsert",
    });
    return applyPlan(ctx, plan);
  },
};

const conceptNew: ToolSpec = {
  name: "concept_new",
  description:
    "Create a concept from a template (see template_list), giving exactly its variables. Errors: already_exists, not_found (template), invalid_argument (variables).",
  inputSchema: obj(
    {
      id: str(),
      template: str(),
      variables: anyObj("Template variable → string"),
      frontmatter: anyObj(),
    },
    ["id", "template"],
  ),
  readOnly: false,
  advanced: false,
  resource: "exact",
  auditFields: ["id", "template"],
  targets: writeTarget,
  handler: async (args, ctx) => {
    const variables: Record<string, string> = {};
    for (const [key, value] of Object.entries(optRecord(args, "variables") ?? {})) {
      if (typeof value === "string") variables[key] = value;
      else if (typeof value === "number" || typeof value === "boolean")
        variables[key] = String(value);
      else
        throw new KbError("invalid_argument", `'variables.${key}' must be a string`, {
          argument: `variables.${key}`,
        });
    }
    const id = reqStr(args, "id");
    const plan = await ctx.runtime.store
      .planConceptNew({
        id,
        template: reqStr(args, "template"),
        variables,
        frontmatter: frontmatterArg(args),
      })
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
};

const conceptPatch: ToolSpec = {
  name: "concept_patch",
  description:
    "Edit a concept: old_string/new_string or ordered edits (atomic), and/or a frontmatter merge (null removes a key; type stays). Errors: old_string_not_found, old_string_ambiguous, stale_write.",
  inputSchema: obj({ id: str(), ...EDIT_PROPS, frontmatter: anyObj(), if_match: IF_MATCH }, ["id"]),
  readOnly: false,
  advanced: false,
  resource: "exact",
  auditFields: ["id"],
  targets: writeTarget,
  handler: async (args, ctx) => {
    const edits = editsFrom(args);
    const frontmatter = optRecord(args, "frontmatter");
    if (!edits && !frontmatter) {
      throw new KbError(
        "invalid_argument",
        "nothing to patch: pass old_string/new_string, edits or frontmatter",
      );
    }
    const plan = await ctx.runtime.store.planConceptPatch({
      id: reqStr(args, "id"),
      edits,
      frontmatter,
      ifMatch: optStr(args, "if_match"),
    });
    return applyPlan(ctx, plan);
  },
};

const conceptDelete: ToolSpec = {
  name: "concept_delete",
  description:
    "Delete a concept; an expanded one with satellites needs recursive (deletes its folder). Errors: not_found, not_empty, stale_write.",
  inputSchema: obj(
    {
      id: str(),
      if_match: IF_MATCH,
      recursive: bool("Also delete everything under an expanded concept's folder"),
      variant: enumOf(["flat", "expanded"], "For an expanded_ambiguous id: the one file to delete"),
    },
    ["id"],
  ),
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
  handler: async (args, ctx) => {
    const variant = optStr(args, "variant");
    const plan = await ctx.runtime.store.planConceptDelete({
      id: reqStr(args, "id"),
      ifMatch: optStr(args, "if_match"),
      recursive: args.recursive === true,
      variant: variant === "flat" || variant === "expanded" ? variant : undefined,
    });
    return applyPlan(ctx, plan);
  },
};

const conceptExpand: ToolSpec = {
  name: "concept_expand",
  description:
    "Turn concept <id>.md into folder <id>/index.md so children can live under it; id unchanged. Errors: not_found, already_exists.",
  inputSchema: obj({ id: str() }, ["id"]),
  readOnly: false,
  advanced: false,
  resource: "exact",
  auditFields: ["id"],
  targets: writeTarget,
  handler: async (args, ctx) => {
    const plan = await ctx.runtime.store.planConceptExpand({ id: reqStr(args, "id") });
    return applyPlan(ctx, plan);
  },
};

const conceptMove: ToolSpec = {
  name: "concept_move",
  description:
    "Move/rename concepts (from/to or moves[]), all validated first; rewrite_links (default true) updates links KB-wide. Errors: not_found, already_exists.",
  inputSchema: obj({
    from: str(),
    to: str(),
    moves: arr(nested({ from: str(), to: str() }, ["from", "to"])),
    rewrite_links: bool(),
  }),
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
};

export const writeTools: ToolSpec[] = [
  conceptWrite,
  conceptNew,
  conceptPatch,
  conceptDelete,
  conceptExpand,
  conceptMove,
  supersedeTool,
];
