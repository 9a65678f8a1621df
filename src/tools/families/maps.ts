/**
 * Structure tools: maps/journals, curated indexes, the log and snapshots (DESIGN §5).
 */
import { KbError } from "../../kb/errors.js";
import { arr, enumOf, obj, str } from "../schema.js";
import type { ToolContext, ToolSpec } from "../spec.js";
import { applyPlan, EDIT_PROPS, editsFrom, optStr, reqStr } from "./write-args.js";

/** How many remaining items a map_delete refusal lists. */
const MAX_LISTED = 20;

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

/** Concept ids and asset paths still inside a map folder. */
async function remainingIn(ctx: ToolContext, name: string): Promise<string[]> {
  const store = ctx.runtime.store;
  const concepts = (await store.scanConceptFiles())
    .filter((c) => c.id.startsWith(`${name}/`))
    .map((c) => c.id);
  const assets = (await store.assets(name)).map((a) => a.path);
  return [...concepts, ...assets];
}

const mapDelete: ToolSpec = {
  name: "map_delete",
  description: "Delete an empty map or journal. Errors: not_empty (lists what remains), not_found.",
  inputSchema: obj({ name: str() }, ["name"]),
  readOnly: false,
  advanced: false,
  destructive: true,
  resource: "whole",
  auditFields: ["name"],
  handler: async (args, ctx) => {
    const name = reqStr(args, "name");
    const maps = await ctx.runtime.store.maps();
    if (!maps.some((m) => m.name === name)) {
      const known = maps.map((m) => m.name).join(", ") || "none";
      throw new KbError("not_found", `map ${name} does not exist (maps: ${known})`);
    }
    const remaining = await remainingIn(ctx, name);
    if (remaining.length > 0) {
      const listed = remaining.slice(0, MAX_LISTED).join(", ");
      const more =
        remaining.length > MAX_LISTED ? ` and ${remaining.length - MAX_LISTED} more` : "";
      throw new KbError(
        "not_empty",
        `map ${name} still holds ${remaining.length} item(s): ${listed}${more}; move or delete them first`,
        { remaining: remaining.slice(0, MAX_LISTED), total: remaining.length },
      );
    }
    return applyPlan(ctx, await ctx.runtime.store.planMapDelete({ name }));
  },
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

/** A tag-safe default label from the call time: `snapshot-20240102T030405Z`. */
export function defaultSnapshotLabel(at: Date): string {
  return `snapshot-${at
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d+Z$/, "Z")}`;
}

const snapshot: ToolSpec = {
  name: "snapshot",
  description: "Tag the current KB state in git (label optional) to return to later.",
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
