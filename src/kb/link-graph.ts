/**
 * The concept link graph (pure): edges from each concept's wiki and relative Markdown links to
 * the concept ids they name (src/kb/markdown.ts extractLinks owns link syntax). Links to ids
 * that do not exist are kept apart as `broken`; asset links as `assets`.
 */

import { extractLinks, type LinkRef } from "./markdown.js";
import type { ConceptDoc } from "./types.js";

export interface LinkGraph {
  /** id → ids it links to (existing concepts only, itself excluded). */
  out: Map<string, Set<string>>;
  /** id → ids linking to it. */
  in: Map<string, Set<string>>;
  /** Concept links whose target is no concept. */
  broken: Array<{ from: string; link: LinkRef }>;
  /** Asset links (KB-root-relative paths), per linking concept. */
  assets: Array<{ from: string; link: LinkRef }>;
}

export function buildLinkGraph(docs: readonly ConceptDoc[]): LinkGraph {
  const ids = new Set(docs.map((d) => d.id));
  const graph: LinkGraph = { out: new Map(), in: new Map(), broken: [], assets: [] };
  for (const d of docs) {
    graph.out.set(d.id, new Set());
    graph.in.set(d.id, new Set());
  }
  for (const doc of docs) {
    for (const link of extractLinks(doc.body, doc.path)) {
      if (link.kind === "asset") {
        graph.assets.push({ from: doc.id, link });
      } else if (ids.has(link.target)) {
        if (link.target === doc.id) continue;
        graph.out.get(doc.id)?.add(link.target);
        graph.in.get(link.target)?.add(doc.id);
      } else {
        graph.broken.push({ from: doc.id, link });
      }
    }
  }
  return graph;
}

export type Direction = "out" | "in" | "both";

/**
 * Minimum link distance (1..depth) from `start` to every reachable concept, breadth first,
 * following `direction`. The start itself is not included.
 */
export function neighbourDistances(
  graph: LinkGraph,
  start: string,
  direction: Direction,
  depth: number,
): Map<string, number> {
  const dist = new Map<string, number>([[start, 0]]);
  let frontier = [start];
  for (let d = 1; d <= depth && frontier.length > 0; d++) {
    const next: string[] = [];
    for (const id of frontier) {
      const steps = [
        ...(direction !== "in" ? (graph.out.get(id) ?? []) : []),
        ...(direction !== "out" ? (graph.in.get(id) ?? []) : []),
      ];
      for (const n of steps) {
        if (dist.has(n)) continue;
        dist.set(n, d);
        next.push(n);
      }
    }
    frontier = next;
  }
  dist.delete(start);
  return dist;
}
