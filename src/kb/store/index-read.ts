/**
 * Concept files read for the search index, in memory bounded per file: the index keeps only the
 * first MAX_INDEXED_BODY_CHARS of a body (src/search/text-bounds.ts), so a file above
 * INDEX_HEAD_BYTES is read once in chunks — its head kept for the document, every chunk fed to
 * the streamed content hash and dropped. Reading a 50 MB concept whole cost ~340 MiB of heap
 * (Buffer, UTF-16 string, normalization copies) that V8 kept afterwards (docs/search.md).
 */
import { constants } from "node:fs";
import { open } from "node:fs/promises";
import { StringDecoder } from "node:string_decoder";
import { KbError } from "../../common/errors.js";
import type { Logger } from "../../logger.js";
import type { ConceptFileStat } from "../core/api.js";
import { ContentHashStream, FrontmatterTooLongError } from "../core/hash-stream.js";
import type { ConceptDoc, MapDescriptor } from "../core/types.js";
import { isVanished, readTextOrNull, readTextsChunked, realPathInside } from "./fsutil.js";
import { toConceptDoc } from "./store-read.js";

/**
 * Files above this many bytes are indexed from their head. 4 MiB holds the 1 Mi indexed body
 * characters (≤ 3 UTF-8 bytes each) after any frontmatter under 1 MiB, so the index stores the
 * same body prefix as a whole read would.
 */
export const INDEX_HEAD_BYTES = 4 * 1024 * 1024;
/**
 * The largest concept the tools handle whole: a write or patch whose result is larger is
 * refused (`too_large`), and concept_read answers a larger file (put there by other means) with
 * its head only, refusing section, outline and full, which need the whole text: reading a file
 * whole costs ~7× its size in memory. Four times the HTTP request cap (2 MiB).
 */
export const MAX_CONCEPT_BYTES = 8 * 1024 * 1024;
/** `too_large` for a concept text over MAX_CONCEPT_BYTES (concept_write, concept_patch, batch). */
export function refuseTooLargeConcept(id: string, bytes: number): void {
  if (bytes <= MAX_CONCEPT_BYTES) return;
  throw new KbError(
    "too_large",
    `concept "${id}" would be ${bytes} bytes, over the ${MAX_CONCEPT_BYTES}-byte limit for a concept: split it into several concepts (or keep the data as an asset)`,
    { id, bytes, limit: MAX_CONCEPT_BYTES },
  );
}

/** Bytes per read of a large file: what the hash stream holds at once. */
const CHUNK_BYTES = 1024 * 1024;

/**
 * The documents of `files` (from scanConcepts), in order; null for a file that vanished since
 * the scan. A file over `wholeUpTo` bytes (default INDEX_HEAD_BYTES: the index needs no more)
 * comes back with its true content hash (a valid `if_match`) but only the first INDEX_HEAD_BYTES
 * of its text.
 */
export async function readIndexDocs(
  root: string,
  files: readonly ConceptFileStat[],
  maps: readonly MapDescriptor[],
  logger?: Logger,
  wholeUpTo = INDEX_HEAD_BYTES,
): Promise<Array<ConceptDoc | null>> {
  const small = files.filter((f) => f.size <= wholeUpTo);
  const texts = await readTextsChunked(
    root,
    small.map((f) => f.path),
  );
  const byPath = new Map(small.map((f, i) => [f.path, texts[i] ?? null]));
  const out: Array<ConceptDoc | null> = [];
  for (const f of files) {
    if (f.size > wholeUpTo) {
      out.push(await readLargeConcept(root, f, maps, logger));
      continue;
    }
    const text = byPath.get(f.path) ?? null;
    out.push(text === null ? null : toConceptDoc(f.id, f.path, text, maps, logger));
  }
  return out;
}

/** One large concept file: head for the document, streamed hash; null when it vanished. */
export async function readLargeConcept(
  root: string,
  file: ConceptFileStat,
  maps: readonly MapDescriptor[],
  logger?: Logger,
): Promise<ConceptDoc | null> {
  let real: string | null;
  try {
    real = await realPathInside(root, file.path);
  } catch (e) {
    if (e instanceof KbError || isVanished(e)) return null; // the walk skips such files too
    throw e;
  }
  if (real === null) return null;
  let read: { head: string; hash: string } | null;
  try {
    read = await headAndHash(real);
  } catch (e) {
    if (isVanished(e)) return null;
    if (!(e instanceof FrontmatterTooLongError)) throw e;
    // A frontmatter block over 1 Mi characters: hashed from the whole text (rare, unbounded).
    const text = await readTextOrNull(root, file.path);
    return text === null ? null : toConceptDoc(file.id, file.path, text, maps, logger);
  }
  if (read === null) return null;
  return toConceptDoc(file.id, file.path, read.head, maps, logger, read.hash);
}

/** The first INDEX_HEAD_BYTES as text and the content hash of the whole file, one pass. */
async function headAndHash(real: string): Promise<{ head: string; hash: string } | null> {
  // Non-blocking open, checked on the handle: a FIFO planted in a KB must not hang the read.
  const handle = await open(real, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    if (!(await handle.stat()).isFile()) return null;
    const decoder = new StringDecoder("utf8");
    const hash = new ContentHashStream();
    const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
    const head: string[] = [];
    for (let position = 0; ; ) {
      const { bytesRead } = await handle.read(buffer, 0, CHUNK_BYTES, position);
      if (bytesRead === 0) break;
      const text = decoder.write(buffer.subarray(0, bytesRead));
      if (position < INDEX_HEAD_BYTES) head.push(text);
      hash.update(text);
      position += bytesRead;
    }
    hash.update(decoder.end());
    return { head: head.join(""), hash: hash.digest() };
  } finally {
    await handle.close();
  }
}
