/**
 * Shared renderings of concept bodies, kept for every viewer (docs/decisions.md "Console:
 * rendered bodies are cached", "Console: the first render of a large concept"). A rendering is
 * a pure function of the text and its place, so an entry is keyed by KB, file path and content
 * hash (and checked against the text's length: an over-limit file's opening has the whole
 * file's hash); who sees which link is applied per view by viewer-links.ts, never stored. Only
 * bodies of at least MIN_BYTES are kept; the whole cache is bounded in bytes, least recently
 * used out first. A large body's render (a view's, or one ahead of views: warm.ts) is
 * registered here while under way, so another view of the same body waits for it instead of
 * making a second one; smaller bodies are rendered in process on every view.
 */
import type { MarkdownPlace, SharedRender } from "./markdown.js";
import { renderShared } from "./markdown.js";
import { RenderPool } from "./render-pool.js";

/** Makes a shared rendering of a large body (RenderPool: off the main thread). */
export type Renderer = (text: string, place: MarkdownPlace) => Promise<SharedRender>;

const inProcess: Renderer = async (text, place) => renderShared(text, place);

export const MIN_BYTES = 32 * 1024;
export const MAX_BYTES = 64 * 1024 * 1024;

/** What the cache has done, for tests and the benchmark (observable, not timed). */
export interface RenderCounters {
  /** Renders made by a view (nothing prepared). */
  viewRenders: number;
  /** Renders made ahead of a view (warm.ts). */
  backgroundRenders: number;
  /** Views answered from a kept rendering. */
  hits: number;
  /** Views that waited for a background render of their body. */
  waits: number;
}

interface Entry {
  render: SharedRender;
  length: number;
  /** placeKey of the file it renders. */
  place: string;
  bytes: number;
}

function placeKey(place: MarkdownPlace): string {
  return `${place.kb}\u0000${place.fromPath}`;
}

export function renderKey(place: MarkdownPlace, hash: string): string {
  return `${placeKey(place)}\u0000${hash}`;
}

/** Bytes an entry holds: the HTML and the ids (UTF-16, two bytes a code unit). */
function sizeOf(r: SharedRender): number {
  let n = r.html.length;
  for (const id of r.anchors) n += id.length + 8;
  for (const id of r.targets) n += id.length + 8;
  return n * 2;
}

export class RenderCache {
  readonly #entries = new Map<string, Entry>();
  /** The one kept key of each file: a newer content replaces the older one's rendering. */
  readonly #byPlace = new Map<string, string>();
  readonly #pending = new Map<string, Promise<void>>();
  #bytes = 0;
  /** Bytes kept per character of Markdown, the largest seen so far (link-dense text runs high). */
  #ratio = 4;
  readonly counters: RenderCounters = { viewRenders: 0, backgroundRenders: 0, hits: 0, waits: 0 };

  constructor(
    readonly maxBytes = MAX_BYTES,
    readonly minBytes = MIN_BYTES,
    private readonly renderer: Renderer = inProcess,
  ) {}

  /**
   * The shared rendering of `text` (content hash `hash`) at `place`: kept, awaited from a
   * render of the same body under way, or made now — by the renderer and kept for a body of at
   * least MIN_BYTES, in process and not kept for a smaller one.
   */
  async obtain(text: string, hash: string, place: MarkdownPlace): Promise<SharedRender> {
    if (text.length < this.minBytes) {
      this.counters.viewRenders++;
      return renderShared(text, place);
    }
    const key = renderKey(place, hash);
    const pending = this.#pending.get(key);
    if (pending !== undefined) {
      this.counters.waits++;
      await pending;
    }
    const kept = this.#take(key, text.length);
    if (kept !== null) {
      this.counters.hits++;
      return kept;
    }
    this.counters.viewRenders++;
    const made = this.renderer(text, place);
    const run = made.then(
      (render) => this.#put(place, hash, render, text.length),
      () => {},
    );
    this.#pending.set(key, run);
    try {
      return await made;
    } finally {
      if (this.#pending.get(key) === run) this.#pending.delete(key);
    }
  }

  /** True when the rendering of `hash` at `place` is kept. */
  has(place: MarkdownPlace, hash: string): boolean {
    return this.#entries.has(renderKey(place, hash));
  }

  /**
   * Runs `read` and renders what it read as the background render of `hash` at `place`: views of
   * that body wait for it. `read` returns the text and its content hash as read now (it may be
   * newer than `hash`, the index's), or null when there is nothing to render; the rendering is
   * kept under the hash read when the text has at least MIN_BYTES.
   */
  async prepare(
    place: MarkdownPlace,
    hash: string,
    read: () => Promise<{ text: string; hash: string } | null>,
    opts: { evict?: boolean } = {},
  ): Promise<"rendered" | "kept" | "skipped" | "full"> {
    const key = renderKey(place, hash);
    if (this.#entries.has(key)) return "kept";
    const running = this.#pending.get(key);
    if (running !== undefined) {
      await running;
      return "kept";
    }
    let outcome: "rendered" | "skipped" | "full" = "skipped";
    const run = (async () => {
      const doc = await read();
      if (doc === null || doc.text.length < this.minBytes) return;
      const readKey = renderKey(place, doc.hash);
      if (this.#entries.has(readKey)) return;
      const render = await this.renderer(doc.text, place);
      this.counters.backgroundRenders++;
      if (
        opts.evict === false &&
        this.#bytes + this.#measure(render, doc.text.length) > this.maxBytes
      )
        outcome = "full";
      else {
        this.#put(place, doc.hash, render, doc.text.length);
        outcome = "rendered";
      }
    })();
    // Views wait for it whatever its outcome: a failed read leaves them to render themselves.
    this.#pending.set(
      key,
      run.catch(() => {}),
    );
    try {
      await run;
    } finally {
      this.#pending.delete(key);
    }
    return outcome;
  }

  /**
   * True when a rendering of `textLength` characters would likely fit without evicting (by the
   * largest bytes-per-character seen; `prepare` with `evict: false` checks the real size).
   */
  fits(textLength: number): boolean {
    return this.#bytes + textLength * this.#ratio <= this.maxBytes;
  }

  #measure(render: SharedRender, length: number): number {
    const bytes = sizeOf(render);
    if (length > 0) this.#ratio = Math.max(this.#ratio, bytes / length);
    return bytes;
  }

  get bytes(): number {
    return this.#bytes;
  }

  #take(key: string, length: number): SharedRender | null {
    const entry = this.#entries.get(key);
    if (entry === undefined || entry.length !== length) return null;
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry.render;
  }

  #put(place: MarkdownPlace, hash: string, render: SharedRender, length: number): void {
    const bytes = this.#measure(render, length);
    if (bytes > this.maxBytes) return;
    const key = renderKey(place, hash);
    const previous = this.#byPlace.get(placeKey(place));
    if (previous !== undefined) this.#drop(previous);
    this.#drop(key);
    this.#entries.set(key, { render, length, place: placeKey(place), bytes });
    this.#byPlace.set(placeKey(place), key);
    this.#bytes += bytes;
    while (this.#bytes > this.maxBytes) this.#drop(this.#entries.keys().next().value as string);
  }

  #drop(key: string): void {
    const entry = this.#entries.get(key);
    if (entry === undefined) return;
    this.#entries.delete(key);
    this.#bytes -= entry.bytes;
    if (this.#byPlace.get(entry.place) === key) this.#byPlace.delete(entry.place);
  }
}

/** The thread that renders large bodies for RENDERS. */
export const RENDER_POOL = new RenderPool();

/** The console's one cache: the concept page reads it, warm.ts fills it. */
export const RENDERS = new RenderCache(MAX_BYTES, MIN_BYTES, (text, place) =>
  RENDER_POOL.render(text, place),
);
