/**
 * How the search memories of a process are built (search-memory.ts): the rows read on a worker
 * thread, one KB's build at a time, and what all of them may hold together. A build makes the
 * trigram memory first (under a second at 100,000 concepts), then the word memory (seconds).
 */
import type { Worker } from "node:worker_threads";
import type Database from "better-sqlite3";
import { siblingModule, startModuleWorker } from "../common/module-worker.js";
import {
  buildTrigramArrays,
  TRIGRAM_ROWS_SQL,
  type TrigramArrays,
  type TrigramRow,
} from "./ranking/trigram-memory.js";
import type { WordArrays } from "./ranking/word-arrays.js";
import { readWordArrays, type WordBuildOptions } from "./word-build.js";

export interface MemoryBuildRequest {
  dbPath: string;
  maxTextBytes: number;
  /** The word memory too, with bm25's column weights, held to `maxBytes`; null: none. */
  words: WordBuildOptions | null;
}

/** The worker's messages: the trigram arrays, then (when asked) the word arrays. */
export type MemoryBuildReply =
  | { arrays: TrigramArrays | null }
  | { words: WordArrays | null }
  | { error: string };

/** The two memories' arrays, each when its part of the build ends (null: declined). */
export interface BuiltArrays {
  trigrams: Promise<TrigramArrays | null>;
  words: Promise<WordArrays | null>;
}

/**
 * All KBs' memories together, in one process: a server of many large KBs keeps the first that
 * fit and ranks the others in FTS5 (the answers are the same).
 */
export const PROCESS_BUDGET_BYTES = 256 * 1024 * 1024;

/** Bytes of the memories held now, in this process (each thread has its own count). */
let held = 0;
/** The build running or last queued in this process: builds take turns (takeTurn). */
let turns: Promise<void> = Promise.resolve();
/** Builds running now in this process: never more than one. */
let running = 0;

/** Counts `bytes` as held when they fit under `budget` with what is held; false when not. */
export function reserve(bytes: number, budget: number): boolean {
  if (held + bytes > budget) return false;
  held += bytes;
  return true;
}

export function release(bytes: number): void {
  held -= bytes;
}

export function heldBytes(): number {
  return held;
}

/** Runs `build` once every build queued before it has ended: one worker at a time. */
export function takeTurn(build: () => Promise<void>): Promise<void> {
  const mine = turns.then(async () => {
    running++;
    try {
      await build();
    } finally {
      running--;
    }
  });
  turns = mine.catch(() => undefined);
  return mine;
}

/** How many trigram builds run at this moment in this process (read by a test). */
export function memoryBuildsRunning(): number {
  return running;
}

const WORKER_URL = siblingModule(import.meta.url, "memory-build-worker");

/**
 * The arrays of the index at `request.dbPath`: read on a worker for a file (told to `onWorker`,
 * so a close can stop it), here for `:memory:` (tests' small indexes, which no other
 * connection can open).
 */
export function readMemoryArrays(
  db: Database.Database,
  request: MemoryBuildRequest,
  onWorker: (worker: Worker | undefined) => void,
): BuiltArrays {
  if (request.dbPath === ":memory:") {
    const rows = db.prepare(TRIGRAM_ROWS_SQL).raw().iterate() as Iterable<TrigramRow>;
    const trigrams = buildTrigramArrays(rows, request.maxTextBytes);
    const { words } = request;
    return {
      trigrams: Promise.resolve(trigrams),
      words: Promise.resolve(words && trigrams && readWordArrays(db, words)),
    };
  }
  const worker = startModuleWorker(WORKER_URL);
  worker.unref(); // a build in flight never keeps a closing process alive
  onWorker(worker);
  let trigramsDone: Settle<TrigramArrays | null> | undefined;
  const trigrams = new Promise<TrigramArrays | null>((resolve, reject) => {
    trigramsDone = { resolve, reject };
  });
  const words = new Promise<WordArrays | null>((resolve, reject) => {
    // Settling a settled promise does nothing: a failure after the trigram arrays fails words only.
    const fail = (err: Error) => {
      trigramsDone?.reject(err);
      reject(err);
    };
    worker.on("message", (reply: MemoryBuildReply) => {
      if ("error" in reply) return fail(new Error(reply.error));
      if ("words" in reply) return resolve(reply.words);
      trigramsDone?.resolve(reply.arrays);
      if (request.words === null) resolve(null);
    });
    worker.once("error", fail);
    worker.once("exit", (code) => fail(new Error(`worker exited (${code})`)));
    worker.postMessage(request);
  }).finally(() => {
    onWorker(undefined);
    void worker.terminate();
  });
  // Either may be left unawaited (a caller that stops after the first): never an unhandled rejection.
  for (const p of [trigrams, words]) p.catch(() => undefined);
  return { trigrams, words };
}

interface Settle<T> {
  resolve: (value: T) => void;
  reject: (err: Error) => void;
}
