/**
 * The worker thread of render-pool.ts: makes the shared rendering of a large body (markdown.ts
 * `renderShared`: markdown-it, then sanitize-html) off the main thread, so pages and tool calls
 * keep being answered while it runs. Any failure answers `failed`: the main thread then renders
 * in process, with the same result and errors.
 */
import { parentPort } from "node:worker_threads";
import { renderShared } from "./markdown.js";
import type { RenderReply, RenderRequest } from "./render-pool.js";

const port = parentPort;
if (port === null) throw new Error("render-worker.ts runs as a worker thread only");

port.on("message", (req: RenderRequest) => {
  let reply: RenderReply;
  try {
    reply = { id: req.id, render: renderShared(req.text, req.place) };
  } catch {
    reply = { id: req.id, failed: true };
  }
  port.postMessage(reply);
});
