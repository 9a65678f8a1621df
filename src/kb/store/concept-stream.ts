/**
 * Every concept of a scan, read a batch at a time (docs/decisions.md "Whole-KB passes stream"):
 * a batch is at most STREAM_BATCH_FILES files or STREAM_BATCH_BYTES bytes of them, so a pass
 * over the KB holds one batch of texts, never the KB, and other calls (and /health) run between
 * two batches: the file reads are synchronous, so without the explicit turn a whole pass would
 * run in microtasks and hold the event loop from start to end. A file over MAX_CONCEPT_BYTES comes as its
 * head with the whole file's hash, as listConcepts reads it (index-read.ts).
 */
import type { Logger } from "../../logger.js";
import type { ConceptFileStat } from "../core/api.js";
import type { ConceptDoc, MapDescriptor } from "../core/types.js";
import { MAX_CONCEPT_BYTES, readIndexDocs } from "./index-read.js";

/**
 * Small enough that reading, parsing and checking one batch holds the event loop a few ms
 * (every batch ends with a turn of the loop), large enough that the turns cost nothing.
 */
export const STREAM_BATCH_FILES = 16;
export const STREAM_BATCH_BYTES = 1024 * 1024;

/** `files` cut into consecutive batches bounded by count and by bytes (one big file alone). */
export function streamBatches(
  files: readonly ConceptFileStat[],
  maxFiles = STREAM_BATCH_FILES,
  maxBytes = STREAM_BATCH_BYTES,
): ConceptFileStat[][] {
  const batches: ConceptFileStat[][] = [];
  let batch: ConceptFileStat[] = [];
  let bytes = 0;
  for (const f of files) {
    if (batch.length > 0 && (batch.length >= maxFiles || bytes + f.size > maxBytes)) {
      batches.push(batch);
      batch = [];
      bytes = 0;
    }
    batch.push(f);
    bytes += Math.min(f.size, MAX_CONCEPT_BYTES);
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
}

/** The documents of `files` in order, a batch at a time; a file gone since the scan is skipped. */
export async function* streamConceptDocs(
  root: string,
  files: readonly ConceptFileStat[],
  maps: readonly MapDescriptor[],
  logger?: Logger,
): AsyncGenerator<ConceptDoc> {
  for (const batch of streamBatches(files)) {
    const docs = await readIndexDocs(root, batch, maps, logger, MAX_CONCEPT_BYTES);
    for (const doc of docs) if (doc) yield doc;
    await new Promise((r) => setImmediate(r));
  }
}
