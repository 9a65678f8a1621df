/** Reading a request body under a byte cap. */
import type { IncomingMessage } from "node:http";

export type BodyRead = { ok: true; bytes: Buffer } | { ok: false; reason: "too_large" | "aborted" };

/**
 * The whole body, or `too_large` as soon as it exceeds `maxBytes` (a declared Content-Length
 * over the cap is refused before reading). The rest of an oversized body is drained and
 * discarded so the client can read the 413.
 */
export function readBody(req: IncomingMessage, maxBytes: number): Promise<BodyRead> {
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > maxBytes) {
    req.resume();
    return Promise.resolve({ ok: false, reason: "too_large" });
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (result: BodyRead) => {
      if (settled) return;
      settled = true;
      resolve(result);
    };
    req.on("data", (chunk: Buffer) => {
      if (settled) return;
      size += chunk.length;
      if (size > maxBytes) {
        chunks.length = 0;
        settle({ ok: false, reason: "too_large" });
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => settle({ ok: true, bytes: Buffer.concat(chunks) }));
    req.on("aborted", () => settle({ ok: false, reason: "aborted" }));
    req.on("error", () => settle({ ok: false, reason: "aborted" }));
  });
}
