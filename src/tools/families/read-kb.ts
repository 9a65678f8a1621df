/**
 * KB-level reads: atlas_overview, map_list, index_get, template_list, log_tail.
 */
import { KbError } from "../../kb/errors.js";
import { contentHash } from "../../kb/hash.js";
import { validateId } from "../../kb/ids.js";
import type { MapDescriptor } from "../../kb/types.js";
import type { ToolContext, ToolSpec } from "../spec.js";
import { optInt, optString } from "./read-args.js";
import { newestFirst, parseLogEntries } from "./read-log.js";
import { mapVisible } from "./read-visibility.js";

const NO_ARGS = { type: "object" as const, properties: {}, additionalProperties: false };
const LOG_TAIL_DEFAULT = 20;

function describeMap(m: MapDescriptor): Record<string, unknown> {
  return {
    name: m.name,
    kind: m.kind,
    title: m.title,
    concept_types: m.conceptTypes,
    ontology_mode: m.ontologyMode,
    required_fields: m.requiredFields,
    require_index_entry: m.requireIndexEntry,
  };
}

async function visibleMaps(ctx: ToolContext): Promise<MapDescriptor[]> {
  return (await ctx.runtime.store.maps()).filter((m) => mapVisible(ctx.visibility, m));
}

function visibleCount(ctx: ToolContext, prefix?: string): number {
  return ctx.runtime.index.list({ prefix, limit: 1, visibility: ctx.visibility }).total;
}

/**
 * `data/<file>`, or `data/<scope>/<file>` when scope names a map or journal. Anything else is
 * `not_found`: an expanded concept's folder also holds an index.md, which is not a curated index.
 */
async function scopedPath(
  ctx: ToolContext,
  scope: string | undefined,
  file: "index.md" | "log.md",
): Promise<string> {
  if (!scope) return `data/${file}`;
  validateId(scope);
  if (!(await ctx.runtime.store.maps()).some((m) => m.name === scope)) {
    throw new KbError("not_found", `no map "${scope}": check the name with map_list`);
  }
  return `data/${scope}/${file}`;
}

const atlasOverview: ToolSpec = {
  name: "atlas_overview",
  description:
    "Overview of the KB: name, concept count, each map/journal with its concept count, and the KB-root instructions.md (null when absent).",
  inputSchema: NO_ARGS,
  readOnly: true,
  advanced: false,
  idempotent: true,
  resource: "collection",
  auditFields: [],
  handler: async (_args, ctx) => {
    const maps = await visibleMaps(ctx);
    return {
      kb: ctx.runtime.settings.name,
      concepts: visibleCount(ctx),
      maps: maps.map((m) => ({
        name: m.name,
        kind: m.kind,
        title: m.title,
        concepts: visibleCount(ctx, m.name),
      })),
      // The KB's own guidance for agents; `cartographer connect` copies it into the
      // instructions block, so it must be reachable over MCP.
      instructions: await ctx.runtime.store.readText("instructions.md"),
    };
  },
};

const mapList: ToolSpec = {
  name: "map_list",
  description:
    "List maps and journals with kind, title, concept_types, ontology_mode, required_fields.",
  inputSchema: NO_ARGS,
  readOnly: true,
  advanced: false,
  idempotent: true,
  resource: "collection",
  auditFields: [],
  handler: async (_args, ctx) => {
    const maps = await visibleMaps(ctx);
    return { maps: maps.map(describeMap) };
  },
};

const indexGet: ToolSpec = {
  name: "index_get",
  description:
    "Read a curated index: the root data/index.md, or a map's index with scope. Returns {path, hash, content}. Errors: not_found.",
  inputSchema: {
    type: "object",
    properties: { scope: { type: "string", description: "Map name; absent = root index" } },
    additionalProperties: false,
  },
  readOnly: true,
  advanced: false,
  idempotent: true,
  resource: "whole",
  auditFields: ["scope"],
  handler: async (args, ctx) => {
    const scope = optString(args, "scope") || undefined;
    const path = await scopedPath(ctx, scope, "index.md");
    const content = await ctx.runtime.store.readText(path);
    if (content === null) {
      throw new KbError(
        "not_found",
        `no index at ${path} yet: index_patch with append (scope ${scope ?? "absent"}) starts one`,
      );
    }
    return { scope: scope ?? null, path, hash: contentHash(content), content };
  },
};

const templateList: ToolSpec = {
  name: "template_list",
  description: "List concept templates (name, variables) for concept_new.",
  inputSchema: NO_ARGS,
  readOnly: true,
  advanced: false,
  idempotent: true,
  resource: "whole",
  auditFields: [],
  handler: async (_args, ctx) => ({ templates: await ctx.runtime.store.templates() }),
};

const logTail: ToolSpec = {
  name: "log_tail",
  description:
    "Newest log entries first, from data/log.md or a map's log (scope). limit defaults to 20.",
  inputSchema: {
    type: "object",
    properties: {
      scope: { type: "string", description: "Map name; absent = root log" },
      limit: { type: "integer", minimum: 1, maximum: 500 },
    },
    additionalProperties: false,
  },
  readOnly: true,
  advanced: false,
  idempotent: true,
  resource: "whole",
  auditFields: ["scope"],
  handler: async (args, ctx) => {
    const scope = optString(args, "scope") || undefined;
    const limit = optInt(args, "limit", LOG_TAIL_DEFAULT, 1, 500);
    const path = await scopedPath(ctx, scope, "log.md");
    const text = await ctx.runtime.store.readText(path);
    if (text === null) return { path, entries: [], total: 0, note: `no log at ${path}` };
    const entries = newestFirst(parseLogEntries(text));
    if (entries.length === 0) return { path, entries: [], total: 0, note: "log is empty" };
    return {
      path,
      entries: entries.slice(0, limit),
      total: entries.length,
      truncated: entries.length > limit,
    };
  },
};

export const kbReadTools: ToolSpec[] = [atlasOverview, mapList, indexGet, templateList, logTail];
