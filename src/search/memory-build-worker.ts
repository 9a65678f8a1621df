/**
 * The worker thread of memory-build.ts: reads every concept's id, title and tags over its own
 * read-only connection (WAL lets it read beside the server's writer) and builds the trigram
 * memory's arrays, then, when asked, reads the text the word index holds and builds the word
 * memory's; each is sent back without copying as soon as it is built. Reading 100,000 rows is
 * most of the trigram build, kept off the thread that answers calls.
 */
import { parentPort } from "node:worker_threads";
import Database from "better-sqlite3";
import type { MemoryBuildReply, MemoryBuildRequest } from "./memory-build.js";
import { buildTrigramArrays, TRIGRAM_ROWS_SQL, type TrigramRow } from "./ranking/trigram-memory.js";
import { readWordArrays } from "./word-build.js";

const port = parentPort;
if (port === null) throw new Error("memory-build-worker.ts runs as a worker thread only");

port.on("message", (req: MemoryBuildRequest) => {
  try {
    const db = new Database(req.dbPath, { readonly: true, fileMustExist: true });
    try {
      db.pragma("busy_timeout = 5000");
      // Iterated, not read whole: a KB over the bound stops at the row that passes it.
      const rows = db.prepare(TRIGRAM_ROWS_SQL).raw().iterate() as Iterable<TrigramRow>;
      const a = buildTrigramArrays(rows, req.maxTextBytes);
      const buffers = a
        ? [a.text, a.starts, a.rowids, a.sizes, a.keys, a.offsets, a.postings].map((x) => x.buffer)
        : [];
      send({ arrays: a }, buffers);
      if (req.words === null) return;
      // The word memory is kept only beside the trigram memory (search-memory.ts): none without it.
      const w = a === null ? null : readWordArrays(db, req.words);
      const wordBuffers = w
        ? [w.offsets, w.counts, w.postings, w.rowids, w.sizes].map((x) => x.buffer)
        : [];
      send({ words: w }, wordBuffers);
    } finally {
      db.close();
    }
  } catch (err) {
    send({ error: err instanceof Error ? err.message : String(err) }, []);
  }
});

function send(reply: MemoryBuildReply, buffers: ArrayBufferLike[]): void {
  (port as NonNullable<typeof port>).postMessage(reply, buffers as ArrayBuffer[]);
}
