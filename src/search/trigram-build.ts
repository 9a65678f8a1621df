/**
 * How the trigram memories of a process are built (trigram-accel.ts): the rows read on a worker
 * thread, one KB's build at a time, and what all of them may hold together.
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

export interface TrigramBuildRequest {
  dbPath: string;
  maxTextBytes: number;
}

export type TrigramBuildReply = { arrays: TrigramArrays | null } | { error: string };

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
export function trigramBuildsRunning(): number {
  return running;
}

const WORKER_URL = siblingModule(import.meta.url, "trigram-build-worker");

/**
 * The arrays of the index at `request.dbPath`: read on a worker for a file (told to `onWorker`,
 * so a close can stop it), here for `:memory:` (tests' small indexes, which no other
 * connection can open). Null when the build declines the data (trigram-memory.ts).
 */
export function readTrigramArrays(
  db: Database.Database,
  request: TrigramBuildRequest,
  onWorker: (worker: Worker | undefined) => void,
): Promise<TrigramArrays | null> {
  if (request.dbPath === ":memory:") {
    const rows = db.prepare(TRIGRAM_ROWS_SQL).raw().iterate() as Iterable<TrigramRow>;
    return Promise.resolve(buildTrigramArrays(rows, request.maxTextBytes));
  }
  const worker = startModuleWorker(WORKER_URL);
  worker.unref(); // a build in flight never keeps a closing process alive
  onWorker(worker);
  return new Promise<TrigramArrays | null>((resolve, reject) => {
    worker.once("message", (reply: TrigramBuildReply) =>
      "error" in reply ? reject(new Error(reply.error)) : resolve(reply.arrays),
    );
    worker.once("error", reject);
    worker.once("exit", (code) => reject(new Error(`worker exited (${code})`)));
    worker.postMessage(request);
  }).finally(() => {
    onWorker(undefined);
    void worker.terminate();
  });
}
