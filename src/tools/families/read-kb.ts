import { newestFirst, parseLogEntries } from "../../kb/core/log-entries.js";
import type { MapDescriptor } from "../../kb/core/types.js";
import { defineTool } from "../define.js";
import { int, nonEmptyStr, opt } from "../schema.js";
import type { ToolContext, ToolSpec } from "../spec.js";
import { seesKbArtifacts } from "../support/artifact-manifest.js";
import { scopedPath } from "../support/scoped-path.js";
import { mapVisible } from "../support/visibility.js";
import { visibleCount as keptVisibleCount } from "../support/visible-counts.js";
import { indexGet } from "./curated-index.js";

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
  return keptVisibleCount(ctx.runtime.index, ctx.visibility, prefix);
}

/**
 * `data/<file>`, or `data/<scope>/<file>` when scope names a map or journal. Anything else is
 * `not_found`: an expanded concept's folder also holds an index.md, which is not a curated index.
 */
const atlasOverview = defineTool({
  name: "atlas_overview",
  description:
    "Overview of the KB: name, concept count, each map/journal with its concept count, and the KB-root instructions.md (null when absent).",
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
      // instructions block, so it must be reachable over MCP. A KB-level artifact: only a
      // whole-KB reader gets it, as from artifact_read; others read null, as if absent (D118).
      instructions: seesKbArtifacts(ctx.visibility)
        ? await ctx.runtime.store.readText("instructions.md")
        : null,
    };
  },
});

const mapList = defineTool({
  name: "map_list",
  description:
    "List maps and journals with kind, title, concept_types, ontology_mode, required_fields.",
  readOnly: true,
  advanced: false,
  idempotent: true,
  resource: "collection",
  auditFields: [],
  handler: async (_args, ctx) => {
    const maps = await visibleMaps(ctx);
    return { maps: maps.map(describeMap) };
  },
});

const templateList = defineTool({
  name: "template_list",
  description: "List concept templates (name, variables) for concept_new.",
  readOnly: true,
  advanced: false,
  idempotent: true,
  resource: "whole",
  auditFields: [],
  handler: async (_args, ctx) => ({ templates: await ctx.runtime.store.templates() }),
});

const logTail = defineTool({
  name: "log_tail",
  // Go v0.5 argument names (docs/migrating-from-go.md).
  aliases: { path: "scope", n: "limit" },
  description:
    "Newest log entries first, from data/log.md or a map's log (scope). limit defaults to 20.",
  args: {
    scope: opt(nonEmptyStr("Map name; absent = root log")),
    limit: opt(int({ min: 1, max: 500 }), LOG_TAIL_DEFAULT),
  },
  readOnly: true,
  advanced: false,
  idempotent: true,
  resource: "whole",
  auditFields: ["scope"],
  handler: async (args, ctx) => {
    const { scope, limit } = args;
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
});

export const kbReadTools: ToolSpec[] = [atlasOverview, mapList, indexGet, templateList, logTail];
