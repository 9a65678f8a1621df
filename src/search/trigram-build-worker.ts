/**
 * The worker thread of trigram-build.ts: reads every concept's id, title and tags over its own
 * read-only connection (WAL lets it read beside the server's writer) and builds the trigram
 * memory's arrays, sent back without copying. Reading 100,000 rows is ~0.5 s of the build, kept
 * off the thread that answers calls.
 */
import { parentPort } from "node:worker_threads";
import Database from "better-sqlite3";
import { buildTrigramArrays, TRIGRAM_ROWS_SQL, type TrigramRow } from "./ranking/trigram-memory.js";
import type { TrigramBuildReply, TrigramBuildRequest } from "./trigram-build.js";

const port = parentPort;
if (port === null) throw new Error("trigram-build-worker.ts runs as a worker thread only");

port.on("message", (req: TrigramBuildRequest) => {
  let reply: TrigramBuildReply;
  try {
    const db = new Database(req.dbPath, { readonly: true, fileMustExist: true });
    try {
      db.pragma("busy_timeout = 5000");
      // Iterated, not read whole: a KB over the bound stops at the row that passes it.
      const rows = db.prepare(TRIGRAM_ROWS_SQL).raw().iterate() as Iterable<TrigramRow>;
      reply = { arrays: buildTrigramArrays(rows, req.maxTextBytes) };
    } finally {
      db.close();
    }
  } catch (err) {
    reply = { error: err instanceof Error ? err.message : String(err) };
  }
  const a = "arrays" in reply ? reply.arrays : null;
  const buffers = a
    ? [a.text, a.starts, a.rowids, a.sizes, a.keys, a.offsets, a.postings].map((x) => x.buffer)
    : [];
  port.postMessage(reply, buffers as ArrayBuffer[]);
});
