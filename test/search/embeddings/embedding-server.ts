/**
 * A real HTTP embedding server on 127.0.0.1 for tests: answers both Ollama's `/api/embed` and
 * the OpenAI-compatible `/v1/embeddings` with deterministic vectors — a hashed bag of words
 * where a few words share a "meaning" (car ≈ automobile ≈ vehicle), so semantic search finds
 * what keywords miss. Counts requests and texts; can fail the next N requests with 500, or
 * answer after a delay (timeouts), or answer a degenerate vector for texts holding a word
 * (`unusable`: all zero, or one component `1e999`, which JSON reads as Infinity).
 */
import { createHash } from "node:crypto";
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export const DIMS = 64;

/** Words mapped onto one feature: what a real model's semantics would bring together. */
const SYNONYMS: Record<string, string> = {
  automobile: "car",
  vehicle: "car",
  cars: "car",
  feline: "cat",
  kitten: "cat",
  cats: "cat",
  physician: "doctor",
  medic: "doctor",
};

export function embedText(text: string): number[] {
  const v = new Array<number>(DIMS).fill(0);
  for (const raw of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    const word = SYNONYMS[raw] ?? raw;
    const h = createHash("sha256").update(word).digest();
    const a = (h[0] as number) % DIMS;
    const b = (h[1] as number) % DIMS;
    v[a] = (v[a] ?? 0) + 1;
    v[b] = (v[b] ?? 0) + 0.5;
  }
  return v;
}

export interface EmbeddingServer {
  url: string;
  /** HTTP requests answered (any status). */
  requests: number;
  /** Texts embedded in successful answers. */
  texts: number;
  /** Authorization headers seen. */
  auth: string[];
  failNext(n: number, status?: number): void;
  delayMs: number;
  /** Texts holding one of these words get that degenerate vector. */
  unusable: Map<string, "zero" | "infinite">;
  close(): Promise<void>;
}

export async function startEmbeddingServer(): Promise<EmbeddingServer> {
  let failures = 0;
  let failStatus = 500;
  const state = {
    requests: 0,
    texts: 0,
    auth: [] as string[],
    delayMs: 0,
    unusable: new Map<string, "zero" | "infinite">(),
  };
  /** A placeholder number replaced by `1e999` in the JSON text (JSON.stringify writes null). */
  const INFINITE = 987654321.5;
  const vectorOf = (text: string): number[] => {
    const words = new Set(text.toLowerCase().match(/[a-z0-9]+/g) ?? []);
    for (const [word, kind] of state.unusable) {
      if (!words.has(word)) continue;
      const v = new Array<number>(DIMS).fill(0);
      if (kind === "infinite") v[0] = INFINITE;
      return v;
    }
    return embedText(text);
  };
  const send = (res: ServerResponse, body: unknown) =>
    res.end(JSON.stringify(body).replaceAll(String(INFINITE), "1e999"));
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      state.requests++;
      state.auth.push(req.headers.authorization ?? "");
      const answer = () => {
        if (failures > 0) {
          failures--;
          res.writeHead(failStatus).end("boom");
          return;
        }
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
          model: string;
          input: string | string[];
        };
        const inputs = Array.isArray(body.input) ? body.input : [body.input];
        state.texts += inputs.length;
        const vectors = inputs.map(vectorOf);
        res.setHeader("content-type", "application/json");
        if (req.url === "/api/embed") {
          send(res, { model: body.model, embeddings: vectors });
        } else if (req.url === "/v1/embeddings") {
          // Reversed on purpose: clients must order by `index`.
          const data = vectors.map((embedding, index) => ({
            object: "embedding",
            index,
            embedding,
          }));
          send(res, { object: "list", data: data.reverse(), model: body.model });
        } else {
          res.writeHead(404).end();
        }
      };
      if (state.delayMs > 0) setTimeout(answer, state.delayMs);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(state, {
    url: `http://127.0.0.1:${port}`,
    failNext(n: number, status = 500) {
      failures = n;
      failStatus = status;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}
