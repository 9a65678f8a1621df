/**
 * A concept read in one pass: the id resolved once (`<id>.md` when it exists inside the KB, else
 * `<id>/index.md`, as resolveConcept picks for a reader), the file opened once, and its size
 * deciding between the whole text and, over `wholeUpTo` bytes, its head with the whole file's
 * streamed hash (index-read.ts). concept_read used to stat the file for its size, then resolve
 * and read both candidates again (docs/decisions.md "one pass per request").
 */
import { closeSync, readFileSync } from "node:fs";
import { KbError } from "../../common/errors.js";
import type { Logger } from "../../logger.js";
import type { ConceptRead } from "../core/api.js";
import { candidatePaths, validateId } from "../core/ids.js";
import type { MapDescriptor } from "../core/types.js";
import { openRegularSync, readTextOrNull, realPathInsideSync } from "./fsutil.js";
import type { HashMemo } from "./hash-memo.js";
import { readLargeConcept } from "./index-read.js";
import { toConceptDoc } from "./store-read.js";

/** Files up to this size are read on the calling thread; larger ones through the pool. */
const SYNC_READ_BYTES = 1024 * 1024;

/**
 * The concept `id` (null when neither candidate exists). A candidate leading outside the KB
 * through a symlink never counts; its refusal is thrown only when no candidate inside exists.
 */
export async function readConceptFile(
  root: string,
  id: string,
  maps: readonly MapDescriptor[],
  logger?: Logger,
  wholeUpTo = Number.POSITIVE_INFINITY,
  hashes?: HashMemo,
): Promise<ConceptRead | null> {
  validateId(id);
  const [flat, expanded] = candidatePaths(id);
  const isMapFolder = !id.includes("/") && maps.some((m) => m.name === id);
  let refusal: KbError | null = null;
  for (const path of isMapFolder ? [flat] : [flat, expanded]) {
    let real: string | null;
    try {
      real = realPathInsideSync(root, path);
    } catch (e) {
      if (!(e instanceof KbError && e.code === "invalid_argument")) throw e;
      refusal ??= e;
      continue;
    }
    const file = real === null ? null : openRegularSync(real);
    if (file === null) continue;
    const { fd, size, mtimeMs } = file;
    let text: string | null = null;
    try {
      if (size <= SYNC_READ_BYTES && size <= wholeUpTo) text = readFileSync(fd, "utf8");
    } finally {
      closeSync(fd);
    }
    if (size > wholeUpTo) {
      const doc = await readLargeConcept(root, { id, path, mtimeMs, size }, maps, logger);
      return doc ? { doc, bytes: size, truncated: true } : null;
    }
    text ??= await readTextOrNull(root, path);
    if (text === null) return null; // vanished since it was opened
    const doc = toConceptDoc(id, path, text, maps, logger, hashes?.hashOf(path, text));
    return { doc, bytes: size, truncated: false };
  }
  if (refusal) throw refusal;
  return null;
}
