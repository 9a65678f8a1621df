/**
 * Structure tools: maps/journals, curated indexes, the log and snapshots (DESIGN §5).
 */
import { KbError } from "../../kb/errors.js";
import { arr, enumOf, obj, str } from "../schema-legacy.js";
import type { ToolSpec } from "../spec.js";
import { applyPlan, EDIT_PROPS, editsFrom, optStr, reqStr } from "./write-args.js";

const mapCreate: ToolSpec = {
  name: "map_create",
  description:
    "Create a top-level map or journal folder with its _map.md. Errors: already_exists, invalid_id.",
  inputSchema: obj(
    {
      name: str(),
      kind: enumOf(["map", "journal"]),
      title: str(),
      concept_types: arr(str()),
      ontology_mode: enumOf(["strict", "emergent", "off"]),
      required_fields: arr(str()),
    },
    ["name", "kind"],
  ),
  readOnly: false,
  advanced: false,
  resource: "whole",
  auditFields: ["name"],
  handler: async (args, ctx) => {
    const plan = await ctx.runtime.store.planMapCreate({
      name: reqStr(args, "name"),
      kind: args.kind === "journal" ? "journal" : "map",
      title: optStr(args, "title"),
      conceptTypes: args.concept_types as string[] | undefined,
      ontologyMode: args.ontology_mode as "strict" | "emergent" | "off" | undefined,
      requiredFields: args.required_fields as string[] | undefined,
    });
    return applyPlan(ctx, plan);
  },
};

const mapDelete: ToolSpec = {
  name: "map_delete",
  description: "Delete an empty map or journal. Errors: not_empty (lists what remains), not_found.",
  inputSchema: obj({ name: str() }, ["name"]),
  readOnly: false,
  advanced: false,
  destructive: true,
  resource: "whole",
  auditFields: ["name"],
  // The store owns the emptiness rule: not_empty lists what remains (up to 20 paths).
  handler: async (args, ctx) =>
    applyPlan(ctx, await ctx.runtime.store.planMapDelete({ name: reqStr(args, "name") })),
};

const indexPatch: ToolSpec = {
  name: "index_patch",
  description:
    "Edit a curated index.md (scope = map; absent = root): old_string/new_string, edits or append. Errors: old_string_not_found, stale_write.",
  inputSchema: obj({ scope: str(), ...EDIT_PROPS, append: str(), if_match: str() }),
  readOnly: false,
  advanced: false,
  resource: "curated-index",
  auditFields: ["scope"],
  targets: (args) =>
    typeof args.scope === "string" && args.scope !== "" ? [{ id: args.scope, write: true }] : [],
  requiresWholeKb: (args) => typeof args.scope !== "string" || args.scope === "",
  handler: async (args, ctx) => {
    const edits = editsFrom(args);
    const append = optStr(args, "append");
    if (!edits && append === undefined) {
      throw new KbError(
        "invalid_argument",
        "nothing to patch: pass old_string/new_string, edits or append",
      );
    }
    const plan = await ctx.runtime.store.planIndexPatch({
      scope: optStr(args, "scope") || null,
      edits,
      append,
      ifMatch: optStr(args, "if_match"),
    });
    return applyPlan(ctx, plan);
  },
};

const logAppend: ToolSpec = {
  name: "log_append",
  description:
    "Append a dated entry to log.md (scope = map/journal; absent = root) for session notes.",
  inputSchema: obj({ entry: str(), scope: str() }, ["entry"]),
  readOnly: false,
  advanced: false,
  resource: "whole",
  auditFields: ["scope"],
  handler: async (args, ctx) => {
    const plan = await ctx.runtime.store.planLogAppend({
      scope: optStr(args, "scope") || null,
      entry: reqStr(args, "entry"),
      at: ctx.now(),
    });
    return applyPlan(ctx, plan);
  },
};

/** A tag-safe default label from the call time: `20240102T030405Z` (tag `snapshot/<label>`). */
export function defaultSnapshotLabel(at: Date): string {
  return at
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d+Z$/, "Z");
}

const snapshot: ToolSpec = {
  name: "snapshot",
  description:
    "Tag the current KB state in git as snapshot/<label> (default: the time; label chars A-Z a-z 0-9 . _ -). Errors: already_exists, invalid_argument.",
  inputSchema: obj({ label: str() }),
  readOnly: false,
  advanced: false,
  resource: "whole",
  auditFields: ["label"],
  handler: async (args, ctx) => {
    const label = optStr(args, "label") || defaultSnapshotLabel(ctx.now());
    return ctx.runtime.store.snapshot(label);
  },
};

export const mapTools: ToolSpec[] = [mapCreate, mapDelete, indexPatch, logAppend, snapshot];
