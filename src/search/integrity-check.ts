/**
 * SQLite's quick_check of an index file, run on a worker thread over its own read-only
 * connection (WAL lets it read beside the server's writer). It walks every b-tree page: 0.4 s on
 * the 10,000-concept KB, seconds at 100,000, so the server runs it in the background build
 * instead of at open, where it held up the initialize answer and blocked every other KB's calls
 * (docs/decisions.md "The deferred quick_check runs only after an unclean close"). The worker's
 * code is a string (eval) so it runs the same from src/ and dist/.
 */
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";

const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.module);
let answer;
try {
  const db = new Database(workerData.path, { readonly: true, fileMustExist: true });
  try {
    db.pragma("busy_timeout = 5000");
    answer = { result: db.pragma("quick_check(1)", { simple: true }) };
  } finally {
    db.close();
  }
} catch (err) {
  answer = { error: String(err && err.message || err), code: err && err.code };
}
parentPort.postMessage(answer);
`;

/**
 * "ok", or what quick_check (or opening the file) found wrong, with the SQLite error code when
 * the file could not be read at all. Never throws for a damaged file.
 */
export async function quickCheckInWorker(
  dbPath: string,
): Promise<{ ok: true } | { ok: false; message: string; code?: string }> {
  const module = createRequire(import.meta.url).resolve("better-sqlite3");
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { module, path: dbPath } });
  try {
    const answer = await new Promise<{ result?: unknown; error?: string; code?: string }>(
      (resolve, reject) => {
        worker.once("message", resolve);
        worker.once("error", reject);
        worker.once("exit", (code) => reject(new Error(`quick_check worker exited (${code})`)));
      },
    );
    if (answer.error !== undefined)
      return { ok: false, message: answer.error, ...(answer.code ? { code: answer.code } : {}) };
    return answer.result === "ok"
      ? { ok: true }
      : { ok: false, message: `quick_check: ${String(answer.result)}` };
  } finally {
    await worker.terminate();
  }
}
