/**
 * Chunks of an import: what one `concept_batch` carries (≤50 operations, under its 512 KiB), so
 * a chunk is one commit whether it goes through a server or is applied here. Pure.
 */
import type { PlannedConcept } from "./types.js";

export const CHUNK_OPS = 50;
/** Under the batch's 512 KiB, with room for the request's own envelope. */
export const CHUNK_BYTES = 480 * 1024;

/** The `concept_batch` write operation of a planned concept. */
export function writeOperation(c: PlannedConcept): Record<string, unknown> {
  return { op: "write", id: c.id, frontmatter: c.frontmatter, body: c.body };
}

/** Consecutive chunks in plan order; a concept alone over the byte budget is a chunk of its own. */
export function chunkConcepts(concepts: readonly PlannedConcept[]): PlannedConcept[][] {
  const chunks: PlannedConcept[][] = [];
  let current: PlannedConcept[] = [];
  let bytes = 0;
  for (const c of concepts) {
    const size = Buffer.byteLength(JSON.stringify(writeOperation(c))) + 1;
    if (current.length > 0 && (current.length >= CHUNK_OPS || bytes + size > CHUNK_BYTES)) {
      chunks.push(current);
      current = [];
      bytes = 0;
    }
    current.push(c);
    bytes += size;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}
