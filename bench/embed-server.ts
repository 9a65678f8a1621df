/**
 * A stand-in embedding provider for the benchmark: a real HTTP server on 127.0.0.1 speaking
 * Ollama's `/api/embed`, answering a hashed bag of words (FNV-1a, `dims` floats). It has no
 * model's understanding: the only "meaning" it knows is that `synx<word>` is `<word>` — the
 * paraphrase the labelled queries use (semantic.ts). Latency figures therefore exclude model
 * inference (a real model adds its own per-query time).
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export const PARAPHRASE_PREFIX = "synx";

function fnv1a(word: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < word.length; i++) {
    h ^= word.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

export function embedText(text: string, dims: number): number[] {
  const v = new Array<number>(dims).fill(0);
  for (const raw of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    const word = raw.startsWith(PARAPHRASE_PREFIX) ? raw.slice(PARAPHRASE_PREFIX.length) : raw;
    const h = fnv1a(word);
    const a = h % dims;
    const b = (h >>> 16) % dims;
    v[a] = (v[a] ?? 0) + 1;
    v[b] = (v[b] ?? 0) + 0.5;
  }
  return v;
}

export async function startEmbedServer(
  dims: number,
): Promise<{ url: string; texts: () => number; close: () => Promise<void> }> {
  let texts = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { input: string[] };
      texts += body.input.length;
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ embeddings: body.input.map((t) => embedText(t, dims)) }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    texts: () => texts,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
