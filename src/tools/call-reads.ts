/**
 * The concepts one call reads, each resolved and read once however many of its steps ask: the
 * authorization facts (target-facts.ts) and then the handler of a read see the same document,
 * read once (docs/decisions.md "one pass per request"). One instance per call, or per locked
 * part of a write call: facts read before the lock are never reused under it (D118).
 */
import type { ConceptRead, KbStore } from "../kb/core/api.js";
import { MAX_CONCEPT_BYTES } from "../kb/store/index-read.js";

export class CallReads {
  readonly #reads = new Map<string, Promise<ConceptRead | null>>();

  constructor(private readonly store: Pick<KbStore, "readConceptFile">) {}

  /** The concept `id` as readConceptFile reads it (head only over MAX_CONCEPT_BYTES). */
  concept(id: string): Promise<ConceptRead | null> {
    let read = this.#reads.get(id);
    if (read === undefined) {
      read = this.store.readConceptFile(id, MAX_CONCEPT_BYTES);
      this.#reads.set(id, read);
    }
    return read;
  }
}
