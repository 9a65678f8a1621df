/**
 * Rendered concept bodies, kept for the next view (docs/decisions.md "Console: rendered bodies
 * are cached"). Rendering is a pure function of the text, its place and which linked concepts
 * the viewer sees, so an entry is keyed by KB, file path and content hash, and holds the linked
 * ids (no second parse to learn them) and the HTML per set of visible targets — a narrower reader
 * never gets a rendering made for a wider one. Only bodies over MIN_BYTES are kept; the whole
 * cache is bounded in bytes, least recently used out first.
 */
import type { Safe } from "../html.js";
import { type MarkdownPlace, prepareMarkdown } from "./markdown.js";

export const MIN_BYTES = 32 * 1024;
export const MAX_BYTES = 64 * 1024 * 1024;
/** Renderings kept per body (distinct visible-target sets). */
const PER_BODY = 4;

interface Entry {
  targets: readonly string[];
  renders: Map<string, Safe>;
  bytes: number;
}

export class RenderCache {
  readonly #entries = new Map<string, Entry>();
  #bytes = 0;
  constructor(
    private readonly maxBytes = MAX_BYTES,
    private readonly minBytes = MIN_BYTES,
  ) {}

  /**
   * The HTML of `text` (content hash `hash`) at `place`, linking the targets `visibleOf` admits;
   * and the concept ids the text links to.
   */
  render(
    text: string,
    hash: string,
    place: MarkdownPlace,
    visibleOf: (targets: readonly string[]) => ReadonlySet<string>,
  ): { html: Safe; targets: readonly string[]; visible: ReadonlySet<string> } {
    const key = `${place.kb}\u0000${place.fromPath}\u0000${hash}`;
    const cached = text.length >= this.minBytes ? this.#entries.get(key) : undefined;
    if (cached !== undefined) {
      this.#entries.delete(key);
      this.#entries.set(key, cached);
      const visible = visibleOf(cached.targets);
      const vkey = [...visible].sort().join("\u0000");
      const hit = cached.renders.get(vkey);
      if (hit !== undefined) return { html: hit, targets: cached.targets, visible };
      const html = prepareMarkdown(text, place).render((id) => visible.has(id));
      this.#add(key, cached, vkey, html);
      return { html, targets: cached.targets, visible };
    }
    const prepared = prepareMarkdown(text, place);
    const visible = visibleOf(prepared.conceptTargets);
    const html = prepared.render((id) => visible.has(id));
    if (text.length >= this.minBytes) {
      const entry: Entry = { targets: prepared.conceptTargets, renders: new Map(), bytes: 0 };
      this.#entries.set(key, entry);
      this.#add(key, entry, [...visible].sort().join("\u0000"), html);
    }
    return { html, targets: prepared.conceptTargets, visible };
  }

  #add(_key: string, entry: Entry, vkey: string, html: Safe): void {
    if (entry.renders.size >= PER_BODY) {
      const first = entry.renders.keys().next().value as string;
      const dropped = entry.renders.get(first)?.value.length ?? 0;
      entry.renders.delete(first);
      entry.bytes -= dropped;
      this.#bytes -= dropped;
    }
    entry.renders.set(vkey, html);
    entry.bytes += html.value.length;
    this.#bytes += html.value.length;
    while (this.#bytes > this.maxBytes && this.#entries.size > 0) {
      const oldest = this.#entries.keys().next().value as string;
      this.#bytes -= this.#entries.get(oldest)?.bytes ?? 0;
      this.#entries.delete(oldest);
    }
  }

  get bytes(): number {
    return this.#bytes;
  }
}
