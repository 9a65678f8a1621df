/**
 * What the concept page reads: the concept in full (`concept_read`, its opening with a note when
 * the file is over the server's whole-read limit), and on request its graph neighbours
 * (`graph_neighbors`, a whole-KB pass: only when asked, docs/decisions.md "Console: backlinks on
 * request").
 */
import type { ConsoleKbs } from "../kbs.js";
import { ConsoleError } from "../outcome.js";
import type { Viewer } from "../types.js";

export interface ConceptRead {
  id: string;
  hash: string;
  path: string;
  type: string;
  map: string | null;
  journal: string | null;
  frontmatter: Record<string, unknown>;
  body: string;
  note?: string;
}

export interface Neighbor {
  id: string;
  distance: number;
  title: string | null;
  type: string;
  link?: "in" | "out" | "both";
}

/** The concept as the viewer may read it; ConsoleError not_found for missing and hidden alike. */
export async function readConcept(
  kbs: ConsoleKbs,
  viewer: Viewer,
  kb: string,
  id: string,
): Promise<ConceptRead> {
  const full = await kbs.call<ConceptRead>(viewer, kb, "concept_read", { id, full: true });
  if (full.ok) return full.value;
  if (full.code !== "too_large") throw new ConsoleError(full.code, full.message);
  return kbs.read<ConceptRead>(viewer, kb, "concept_read", { id });
}

/** Concepts linking to `id` and linked from it, as the viewer sees the graph. */
export async function readNeighbors(
  kbs: ConsoleKbs,
  viewer: Viewer,
  kb: string,
  id: string,
): Promise<{ backlinks: Neighbor[]; outgoing: Neighbor[] }> {
  const r = await kbs.read<{ neighbors: Neighbor[] }>(viewer, kb, "graph_neighbors", {
    id,
    direction: "both",
    depth: 1,
  });
  return {
    backlinks: r.neighbors.filter((n) => n.link === "in" || n.link === "both"),
    outgoing: r.neighbors.filter((n) => n.link === "out" || n.link === "both"),
  };
}
