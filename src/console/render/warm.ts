/**
 * Large concept bodies rendered ahead of their first view (docs/decisions.md "Console: the first
 * render of a large concept"): after each write that leaves a concept body of at least the
 * cache's MIN_BYTES (KbRuntime.onIndexed), and once when the console starts, for the KB's
 * largest existing concepts, found from the index's stored file sizes (no file is read to find
 * them). One render at a time, on the render thread (render-pool.ts), with a turn of the event
 * loop between renders; the start pass is bounded in count and time and stops before the cache's byte bound
 * would be exceeded (it never evicts). The texts are read with the store's own read
 * (`readConceptFile`, the one concept_read uses) and rendered for no one in particular: the
 * page still reads the concept as its viewer and links it for that viewer (viewer-links.ts).
 */
import { MAX_CONCEPT_BYTES } from "../../kb/store/index-read.js";
import type { Logger } from "../../logger.js";
import type { KbRuntime } from "../../runtime/kb-runtime.js";
import { RENDERS, type RenderCache } from "./cache.js";

export interface WarmOptions {
  cache?: RenderCache;
  /** Most concepts the start pass renders per KB (the largest first). Default 200. */
  maxConcepts?: number;
  /** How long the start pass of a KB may run, index wait included. Default 10 minutes. */
  maxMs?: number;
  /** Index rows read per step of the start pass. Default 2,000. */
  pageRows?: number;
  /** Most written concepts waiting to be rendered; older ones are dropped (a view renders them). */
  maxQueued?: number;
  logger?: Logger;
}

interface Job {
  kb: string;
  id: string;
  runtime: KbRuntime;
}

interface Candidate {
  id: string;
  path: string;
  hash: string;
  size: number;
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
/** A wait that does not keep the process alive (the index may never finish if the server stops). */
const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

export class RenderWarmer {
  readonly #cache: RenderCache;
  readonly #opts: Required<Omit<WarmOptions, "cache" | "logger">>;
  readonly #logger: Logger | undefined;
  readonly #queue = new Map<string, Job>();
  readonly #stops: Array<() => void> = [];
  readonly #passes: Promise<void>[] = [];
  #pump: Promise<void> | null = null;
  #stopped = false;

  constructor(opts: WarmOptions = {}) {
    this.#cache = opts.cache ?? RENDERS;
    this.#logger = opts.logger;
    this.#opts = {
      maxConcepts: opts.maxConcepts ?? 200,
      maxMs: opts.maxMs ?? 600_000,
      pageRows: opts.pageRows ?? 2_000,
      maxQueued: opts.maxQueued ?? 64,
    };
  }

  /** Follows the writes of `runtime` (KB `kb`) and starts its start pass. */
  watch(kb: string, runtime: KbRuntime): void {
    if (this.#stopped) return;
    this.#stops.push(
      runtime.onIndexed((ids, docs) => {
        ids.forEach((id, i) => {
          const doc = docs[i];
          if (doc && doc.body.length >= this.#cache.minBytes) this.#enqueue({ kb, id, runtime });
        });
      }),
    );
    this.#passes.push(this.#startPass(kb, runtime));
  }

  /** Resolves once the start passes have ended and no written concept waits (tests, bench). */
  async settled(): Promise<void> {
    await Promise.all(this.#passes);
    while (this.#pump !== null) await this.#pump;
  }

  /** Stops following writes; the render under way finishes, nothing new starts. */
  stop(): void {
    this.#stopped = true;
    this.#queue.clear();
    for (const stop of this.#stops.splice(0)) stop();
  }

  #enqueue(job: Job): void {
    const key = `${job.kb}\u0000${job.id}`;
    this.#queue.delete(key);
    this.#queue.set(key, job);
    while (this.#queue.size > this.#opts.maxQueued) {
      this.#queue.delete(this.#queue.keys().next().value as string);
    }
    this.#pump ??= this.#drain().finally(() => {
      this.#pump = null;
    });
  }

  async #drain(): Promise<void> {
    await turn(); // the write that queued the job goes on first (its file is already written)
    while (!this.#stopped && this.#queue.size > 0) {
      const [key, job] = this.#queue.entries().next().value as [string, Job];
      this.#queue.delete(key);
      let row: { path: string; hash: string } | undefined;
      try {
        row = job.runtime.index.indexedFilesOf([job.id]).get(job.id);
      } catch {
        row = undefined; // a closed or damaged index: the view renders it
      }
      if (row !== undefined) await this.#render(job.kb, job.runtime, { ...row, id: job.id }, true);
      await turn();
    }
  }

  /** Renders `c` into the cache; `evict: false` (the start pass) keeps it only if it fits. */
  #render(kb: string, runtime: KbRuntime, c: Omit<Candidate, "size">, evict: boolean) {
    const place = { kb, fromPath: c.path };
    return this.#cache
      .prepare(
        place,
        c.hash,
        async () => {
          const read = await runtime.store.readConceptFile(c.id, MAX_CONCEPT_BYTES);
          if (read === null || read.truncated || read.doc.path !== c.path) return null;
          return { text: read.doc.body, hash: read.doc.hash };
        },
        { evict },
      )
      .catch(() => "skipped" as const); // a vanished or unreadable file: a view will say so
  }

  async #startPass(kb: string, runtime: KbRuntime): Promise<void> {
    const started = Date.now();
    const late = () => Date.now() - started > this.#opts.maxMs;
    while (!runtime.indexStatus.ready) {
      if (this.#stopped || late() || runtime.indexStatus.progress.state === "failed") return;
      await pause(250);
    }
    let stopped = "";
    let rendered = 0;
    try {
      const found = await this.#largest(runtime, late);
      for (const c of found) {
        if (this.#stopped || late()) {
          stopped = "time bound";
          break;
        }
        if (this.#cache.has({ kb, fromPath: c.path }, c.hash)) continue;
        if (!this.#cache.fits(c.size)) {
          stopped = "the render cache is full";
          break;
        }
        const outcome = await this.#render(kb, runtime, c, false);
        if (outcome === "full") {
          stopped = "the render cache is full";
          break;
        }
        if (outcome === "rendered") rendered++;
        await turn();
      }
    } catch {
      stopped = "the index could not be read";
    }
    this.#logger?.info(
      `console: rendered ahead ${rendered} large concept(s) of KB '${kb}' in ${Date.now() - started} ms${stopped ? ` (stopped: ${stopped})` : ""}`,
    );
  }

  /** The KB's largest concepts of at least MIN_BYTES (index sizes), largest first, bounded. */
  async #largest(runtime: KbRuntime, late: () => boolean): Promise<Candidate[]> {
    const { maxConcepts, pageRows } = this.#opts;
    let kept: Candidate[] = [];
    let after = "";
    while (!this.#stopped && !late()) {
      const page = runtime.index.indexedFiles({ after, limit: pageRows });
      for (const [id, f] of page) {
        after = id;
        if (f.size !== null && f.size >= this.#cache.minBytes)
          kept.push({ id, path: f.path, hash: f.hash, size: f.size });
      }
      if (kept.length > maxConcepts * 2)
        kept = kept.sort((a, b) => b.size - a.size).slice(0, maxConcepts);
      if (page.size < pageRows) break;
      await turn();
    }
    return kept.sort((a, b) => b.size - a.size).slice(0, maxConcepts);
  }
}
