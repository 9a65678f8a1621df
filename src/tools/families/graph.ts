/**
 * graph_neighbors: concepts linked to or from one concept, with minimum distances. The graph is
 * built from the caller's VISIBLE concepts only, so a hidden concept is never listed and never
 * bridges two visible ones (D118). It is read in one streamed pass: per concept only its title,
 * type and link edges are kept (docs/decisions.md "Whole-KB passes stream").
 */
import { detached } from "../../kb/core/detach.js";
import { validateId } from "../../kb/core/ids.js";
import { LinkGraph } from "../../kb/core/link-graph.js";
import { extractLinks } from "../../kb/core/markdown.js";
import { notFound } from "../../kb/store/store-read.js";
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
  // Every call reads every concept (in-links are known only then): each one is a pass.
  wholeKbPass: () => true,
  handler: async (args, ctx) => {
    const { id, direction, depth } = args;
    validateId(id);
    const { store } = ctx.runtime;
    const files = await store.scanConceptFiles();
    const graph = new LinkGraph(files.map((f) => f.id));
    const facts = new Map<number, { title: string | null; type: string }>();
    for await (const doc of store.streamConcepts(files)) {
      const node = graph.node(doc.id);
      if (node === undefined || !docVisible(ctx.visibility, doc)) continue;
      graph.addLinks(node, extractLinks(doc.body, doc.path));
      facts.set(node, {
        title: doc.title === null ? null : detached(doc.title),
        type: detached(doc.type),
      });
    }
    const start = graph.node(id);
    // Missing and hidden answer the same bytes as concept_read (D118).
    if (start === undefined || !facts.has(start)) throw notFound(id);
    const neighbors = [...graph.distances(start, direction, depth)]
      .map(([node, distance]) => {
        const f = facts.get(node);
        const out = distance === 1 && graph.linksTo(start, node);
        const inn = distance === 1 && graph.linksTo(node, start);
        return {
          id: graph.ids[node] as string,
          distance,
          title: f?.title ?? null,
          type: f?.type ?? "",
          ...(distance === 1 ? { link: out && inn ? "both" : out ? "out" : "in" } : {}),
        };
      })
      .sort((a, b) => a.distance - b.distance || a.id.localeCompare(b.id));
    return { id, direction, depth, neighbors, total: neighbors.length };
  },
});

export const graphTools: ToolSpec[] = [graphNeighbors];
