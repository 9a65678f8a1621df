/**
 * Large shared renderings made on a worker thread (render-worker.ts), so that while markdown-it
 * and sanitize-html work through a large body — about a second for 1 MB on a loaded 2-core
 * machine — the main thread keeps answering pages and tool calls (docs/decisions.md "Console:
 * the first render of a large concept"). One thread, started on first use and stopped after
 * IDLE_MS without work (its heap is tens of MB); requests queue on it in order. When the thread
 * cannot be started or dies, what it had not answered is rendered in process: same result.
 */
import type { Worker } from "node:worker_threads";
import { siblingModule, startModuleWorker } from "../../common/module-worker.js";
import { type MarkdownPlace, renderShared, type SharedRender } from "./markdown.js";

/** What the main thread sends the worker. */
export interface RenderRequest {
  id: number;
  text: string;
  place: MarkdownPlace;
}

/** What the worker answers. */
export type RenderReply = { id: number; render: SharedRender } | { id: number; failed: true };

const IDLE_MS = 5_000;

/** The worker's module beside this one (common/module-worker.ts: dist/ and source alike). */
const WORKER_URL = siblingModule(import.meta.url, "render-worker");

export class RenderPool {
  #worker: Worker | null = null;
  readonly #pending = new Map<number, (render: SharedRender | null) => void>();
  #next = 0;
  #idleTimer: NodeJS.Timeout | null = null;
  /** Renderings the thread made, and those made in process because it could not (tests). */
  readonly counters = { offThread: 0, inProcess: 0 };

  constructor(
    private readonly workerUrl: URL = WORKER_URL,
    private readonly idleMs = IDLE_MS,
  ) {}

  /** The shared rendering of `text` at `place`, made on the thread when it can be. */
  async render(text: string, place: MarkdownPlace): Promise<SharedRender> {
    const made = await this.#ask(text, place);
    if (made !== null) {
      this.counters.offThread++;
      return made;
    }
    this.counters.inProcess++;
    return renderShared(text, place);
  }

  /** Stops the thread (what it had not answered is rendered in process). */
  async close(): Promise<void> {
    const worker = this.#worker;
    this.#lost(worker);
    if (worker) await worker.terminate();
  }

  #ask(text: string, place: MarkdownPlace): Promise<SharedRender | null> {
    let worker: Worker;
    try {
      worker = this.#started();
    } catch {
      return Promise.resolve(null);
    }
    if (this.#idleTimer) clearTimeout(this.#idleTimer);
    this.#idleTimer = null;
    const id = this.#next++;
    return new Promise((resolve) => {
      this.#pending.set(id, resolve);
      worker.ref(); // an answer is awaited: the process must not exit under it
      worker.postMessage({ id, text, place } satisfies RenderRequest);
    });
  }

  #started(): Worker {
    if (this.#worker) return this.#worker;
    const worker = startModuleWorker(this.workerUrl);
    worker.on("message", (reply: RenderReply) => this.#answer(reply));
    // A crash (out of memory, a bug): what it had not answered is rendered in process.
    worker.on("error", () => this.#lost(worker));
    worker.on("exit", () => this.#lost(worker));
    this.#worker = worker;
    return worker;
  }

  #answer(reply: RenderReply): void {
    const resolve = this.#pending.get(reply.id);
    if (!resolve) return;
    this.#pending.delete(reply.id);
    resolve("failed" in reply ? null : reply.render);
    if (this.#pending.size > 0) return;
    this.#worker?.unref();
    this.#idleTimer = setTimeout(() => void this.close(), this.idleMs);
    this.#idleTimer.unref();
  }

  #lost(worker: Worker | null): void {
    if (worker === null || worker !== this.#worker) return;
    this.#worker = null;
    if (this.#idleTimer) clearTimeout(this.#idleTimer);
    this.#idleTimer = null;
    const waiting = [...this.#pending.values()];
    this.#pending.clear();
    for (const resolve of waiting) resolve(null);
  }
}
