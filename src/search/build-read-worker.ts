/**
 * The worker thread of build-reader.ts: reads and parses batches of concept files
 * (readIndexDocs: file read, content hash, frontmatter parse) and computes their row values
 * (prepareRow) while the main thread writes the previous batch into SQLite. Warnings go back
 * with the answer (the main thread's logger writes them). Any failure answers `failed`: the
 * main thread then reads that batch itself, so errors keep the types and messages of an
 * in-process read.
 */
import { parentPort } from "node:worker_threads";
import { readIndexDocs } from "../kb/store/index-read.js";
import type { ReadReply, ReadRequest } from "./build-reader.js";
import { prepareRow } from "./rows.js";

const port = parentPort;
if (port === null) throw new Error("build-read-worker.ts runs as a worker thread only");

port.on("message", (req: ReadRequest) => {
  const warnings: string[] = [];
  const logger = { info() {}, warn: (m: string) => warnings.push(m), error() {} };
  readIndexDocs(req.root, req.files, req.maps, logger).then(
    (docs) => {
      // The row values too (prepareRow), so the main thread only runs the INSERTs; the body is
      // sent once when the indexed prefix is all of it.
      const rows = docs.map((doc) => {
        if (doc === null) return null;
        const row = prepareRow(doc);
        return { ...row, body: row.body === doc.body ? null : row.body };
      });
      port.postMessage({ id: req.id, docs, rows, warnings } satisfies ReadReply);
    },
    () => port.postMessage({ id: req.id, failed: true } satisfies ReadReply),
  );
});
