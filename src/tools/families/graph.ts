/**
 * graph_neighbors: concepts linked to or from one concept, with minimum distances. The graph is
 * built from the caller's VISIBLE concepts only, so a hidden concept is never listed and never
 * bridges two visible ones (D118).
 */
import { validateId } from "../../kb/ids.js";
import { buildLinkGraph, neighbourDistances } from "../../kb/link-graph.js";
import { notFound } from "../../kb/store-read.js";
import { defineTool } from "../define.js";
import { enumOf, int, nonEmptyStr, opt } from "../schema.js";
import type { ToolSpec } from "../spec.js";
import { docVisible } from "../support/visibility.js";

export const MAX_GRAPH_DEPTH = 3;

const graphNeighbors = defineTool({
  name: "graph_neighbors",
  description:
    "Concepts linked from (out), to (in) or both ways around id, with minimum distance; depth 1-3 (default 1). Errors: not_found.",
  args: {
    id: nonEmptyStr(),
    direction: opt(enumOf(["out", "in", "both"]), "both"),
    depth: opt(int({ min: 1, max: MAX_GRAPH_DEPTH }), 1),
  },
  readOnly: true,
  advanced: false,
  idempotent: true,
  resource: "collection",
  auditFields: ["id"],
  requiresWholeKb: (args) => typeof args.depth === "number" && args.depth > 1,
  handler: async (args, ctx) => {
    const { id, direction, depth } = args;
    validateId(id);
    const docs = (await ctx.runtime.store.listConcepts()).filter((d) =>
      docVisible(ctx.visibility, d),
    );
    // Missing and hidden answer the same bytes as concept_read (D118).
    if (!docs.some((d) => d.id === id)) throw notFound(id);
    const graph = buildLinkGraph(docs);
    const byId = new Map(docs.map((d) => [d.id, d]));
    const distances = neighbourDistances(graph, id, direction, depth);
    const neighbors = [...distances]
      .map(([nid, distance]) => {
        const d = byId.get(nid);
        const rel =
          distance === 1
            ? {
                out: graph.out.get(id)?.has(nid) ?? false,
                in: graph.in.get(id)?.has(nid) ?? false,
              }
            : undefined;
        return {
          id: nid,
          distance,
          title: d?.title ?? null,
          type: d?.type ?? "",
          ...(rel ? { link: rel.out && rel.in ? "both" : rel.out ? "out" : "in" } : {}),
        };
      })
      .sort((a, b) => a.distance - b.distance || a.id.localeCompare(b.id));
    return { id, direction, depth, neighbors, total: neighbors.length };
  },
});

export const graphTools: ToolSpec[] = [graphNeighbors];
