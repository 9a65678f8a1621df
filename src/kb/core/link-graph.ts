/**
 * The concept link graph (pure): edges from each concept's wiki and relative Markdown links to
 * the concept ids they name (src/kb/core/markdown.ts extractLinks owns link syntax). Nodes are the ids
 * of a scan, known before any file is read, and edges are node numbers: a whole-KB pass adds one
 * concept's links at a time and keeps no link text, so the graph of 100,000 concepts costs a few
 * megabytes (docs/decisions.md "Whole-KB passes stream").
 */

import type { LinkRef } from "./markdown.js";

export type Direction = "out" | "in" | "both";

/** What addLinks did not turn into edges: links to no node, and asset links. */
export interface UnresolvedLinks {
  broken: LinkRef[];
  assets: LinkRef[];
}

export class LinkGraph {
  private readonly nodes = new Map<string, number>();
  private readonly out: number[][];
  private inbound: number[][] | null = null;
  /** Nodes whose concept was read and counts (hidden or vanished ones are skipped). */
  private readonly present: Uint8Array;

  /** `ids`: every concept id of the scan, each once. */
  constructor(readonly ids: readonly string[]) {
    for (const [i, id] of ids.entries()) this.nodes.set(id, i);
    this.out = ids.map(() => []);
    this.present = new Uint8Array(ids.length);
  }

  /** Node number of `id`, undefined when it is no concept. */
  node(id: string): number | undefined {
    return this.nodes.get(id);
  }

  has(id: string): boolean {
    return this.nodes.has(id);
  }

  /**
   * Records concept `from` (a node) as present with its links: one edge per distinct existing
   * target other than itself. Returns the links that are no edge (broken and asset links).
   */
  addLinks(from: number, links: readonly LinkRef[]): UnresolvedLinks {
    this.present[from] = 1;
    this.inbound = null;
    const unresolved: UnresolvedLinks = { broken: [], assets: [] };
    const seen = new Set<number>();
    for (const link of links) {
      if (link.kind === "asset") {
        unresolved.assets.push(link);
        continue;
      }
      const to = this.nodes.get(link.target);
      if (to === undefined) unresolved.broken.push(link);
      else if (to !== from && !seen.has(to)) {
        seen.add(to);
        (this.out[from] as number[]).push(to);
      }
    }
    return unresolved;
  }

  /** True when a present concept other than `node` links to it (and `node` is present). */
  hasInbound(node: number): boolean {
    return (this.incoming()[node]?.length ?? 0) > 0;
  }

  /** Whether present `from` links to present `to`. */
  linksTo(from: number, to: number): boolean {
    return this.present[to] === 1 && (this.out[from]?.includes(to) ?? false);
  }

  /**
   * Minimum link distance (1..depth) from `start` to every reachable present concept, breadth
   * first, following `direction`, never through an absent node. The start is not included.
   */
  distances(start: number, direction: Direction, depth: number): Map<number, number> {
    const incoming = this.incoming();
    const dist = new Map<number, number>([[start, 0]]);
    let frontier = [start];
    for (let d = 1; d <= depth && frontier.length > 0; d++) {
      const next: number[] = [];
      for (const n of frontier) {
        const steps = [
          ...(direction !== "in" ? (this.out[n] ?? []) : []),
          ...(direction !== "out" ? (incoming[n] ?? []) : []),
        ];
        for (const m of steps) {
          if (dist.has(m) || this.present[m] !== 1) continue;
          dist.set(m, d);
          next.push(m);
        }
      }
      frontier = next;
    }
    dist.delete(start);
    return dist;
  }

  /** Per node, the present nodes linking to it (built once after the last addLinks). */
  private incoming(): number[][] {
    if (this.inbound) return this.inbound;
    const inbound: number[][] = this.ids.map(() => []);
    for (const [from, targets] of this.out.entries()) {
      if (this.present[from] !== 1) continue;
      for (const to of targets) if (this.present[to] === 1) (inbound[to] as number[]).push(from);
    }
    this.inbound = inbound;
    return inbound;
  }
}
