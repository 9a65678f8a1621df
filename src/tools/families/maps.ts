import { defineTool } from "../define.js";
import { arr, enumOf, nonEmptyStr, opt, str } from "../schema.js";
import type { ToolSpec } from "../spec.js";
import { applyPlan } from "../support/write-plan.js";
import { indexPatch } from "./curated-index.js";

const mapCreate = defineTool({
  name: "map_create",
  description:
    "Create a top-level map or journal folder with its _map.md. Errors: already_exists, invalid_id.",
  args: {
    name: nonEmptyStr(),
    // Go's kb-create skill sends {name, title}: kind defaults to map as in Go (docs/migrating-from-go.md).
    kind: opt(enumOf(["map", "journal"]), "map"),
    title: opt(str()),
    concept_types: opt(arr(str())),
    ontology_mode: opt(enumOf(["strict", "emergent", "off"])),
    required_fields: opt(arr(str())),
  },
  readOnly: false,
  advanced: false,
  resource: "whole",
  auditFields: ["name"],
  handler: async (args, ctx) => {
    const plan = await ctx.runtime.store.planMapCreate({
      name: args.name,
      kind: args.kind,
      title: args.title,
      conceptTypes: args.concept_types,
      ontologyMode: args.ontology_mode,
      requiredFields: args.required_fields,
    });
    return applyPlan(ctx, plan);
  },
});

const mapDelete = defineTool({
  name: "map_delete",
  // Go v0.5 argument names (docs/migrating-from-go.md).
  aliases: { map: "name" },
  description: "Delete an empty map or journal. Errors: not_empty (lists what remains), not_found.",
  args: { name: nonEmptyStr() },
  readOnly: false,
  advanced: false,
  destructive: true,
  resource: "whole",
  auditFields: ["name"],
  // The store owns the emptiness rule: not_empty lists what remains (up to 20 paths).
  handler: async (args, ctx) =>
    applyPlan(ctx, await ctx.runtime.store.planMapDelete({ name: args.name })),
});

const logAppend = defineTool({
  name: "log_append",
  // Go v0.5 argument names (docs/migrating-from-go.md).
  aliases: { path: "scope" },
  description:
    "Append a dated entry to log.md (scope = map/journal; absent = root) for session notes.",
  args: { entry: nonEmptyStr(), scope: opt(nonEmptyStr()) },
  readOnly: false,
  advanced: false,
  resource: "whole",
  auditFields: ["scope"],
  handler: async (args, ctx) => {
    const plan = await ctx.runtime.store.planLogAppend({
      scope: args.scope ?? null,
      entry: args.entry,
      at: ctx.now(),
    });
    return applyPlan(ctx, plan);
  },
});

/** A tag-safe default label from the call time: `20240102T030405Z` (tag `snapshot/<label>`). */
export function defaultSnapshotLabel(at: Date): string {
  return at
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d+Z$/, "Z");
}

const snapshot = defineTool({
  name: "snapshot",
  description:
    "Tag the current KB state in git as snapshot/<label> (default: the time; label chars A-Z a-z 0-9 . _ -). Errors: already_exists, invalid_argument.",
  args: { label: opt(nonEmptyStr()) },
  readOnly: false,
  advanced: false,
  resource: "whole",
  auditFields: ["label"],
  handler: async (args, ctx) => {
    const label = args.label ?? defaultSnapshotLabel(ctx.now());
    return ctx.runtime.store.snapshot(label);
  },
});

export const mapTools: ToolSpec[] = [mapCreate, mapDelete, indexPatch, logAppend, snapshot];
