/**
 * Embedding provider clients: Ollama (`POST <url>/api/embed`, `{model, input: [..]}` →
 * `{embeddings: [[..]]}`) and OpenAI-compatible servers (`POST <url>/v1/embeddings` →
 * `{data: [{index, embedding}]}`: llama.cpp, vLLM, LM Studio, hosted APIs). Texts go in batches;
 * each request has a timeout and is retried on a network error, 429 or 5xx with a short
 * backoff. The API key is sent as a bearer token and never appears in an error or a log.
 */
import { KbError } from "../../common/errors.js";
import {
  DEFAULT_ATTEMPTS,
  DEFAULT_BATCH_SIZE,
  DEFAULT_TIMEOUT_MS,
  type EmbeddingsConfig,
} from "./config.js";
import { vectorDefect } from "./vector-defect.js";

export interface EmbeddingClient {
  /** Identifies the vector space: provider, model and dimensions (vectors are keyed by it). */
  readonly space: string;
  /**
   * One unit-length vector per text, in order; null for a text whose vector cannot be used (all
   * zero or not finite: vector-defect.ts), which the caller asks for again later. Throws
   * KbError `internal` naming the cause when the whole answer is wrong (HTTP, shape, length).
   */
  embed(texts: readonly string[]): Promise<Array<Float32Array | null>>;
  /** HTTP requests sent so far (tests and the benchmark count provider calls). */
  readonly requests: number;
}

/** Wait before retry n (1-based); small, the caller is a background pass or one search. */
const backoffMs = (attempt: number) => 200 * 2 ** (attempt - 1);

export function createEmbeddingClient(config: EmbeddingsConfig): EmbeddingClient {
  const batchSize = Math.max(1, config.batchSize ?? DEFAULT_BATCH_SIZE);
  const shape = config.provider === "ollama" ? ollamaShape(config) : openAiShape(config);
  let requests = 0;

  async function post(body: unknown): Promise<unknown> {
    const attempts = Math.max(1, config.attempts ?? DEFAULT_ATTEMPTS);
    let last = "";
    for (let attempt = 1; attempt <= attempts; attempt++) {
      if (attempt > 1) await sleep(backoffMs(attempt - 1));
      requests++;
      let res: Response;
      try {
        res = await fetch(shape.endpoint, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            ...(config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {}),
          },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(config.timeoutMs ?? DEFAULT_TIMEOUT_MS),
        });
      } catch (err) {
        last =
          (err as Error).name === "TimeoutError"
            ? `no answer within ${config.timeoutMs ?? DEFAULT_TIMEOUT_MS} ms`
            : `unreachable (${causeOf(err)})`;
        continue;
      }
      if (res.ok) return res.json().catch(() => null);
      last = `HTTP ${res.status}`;
      await res.body?.cancel();
      if (res.status !== 429 && res.status < 500) break; // a client fault does not heal by retrying
    }
    throw new KbError(
      "internal",
      `the embedding provider (${config.provider}, model ${config.model}) failed: ${last}; check search.embeddings`,
    );
  }

  return {
    space: `${config.provider}:${config.model}:${config.dimensions ?? "auto"}`,
    get requests() {
      return requests;
    },
    async embed(texts) {
      const out: Array<Float32Array | null> = [];
      for (let i = 0; i < texts.length; i += batchSize) {
        const batch = texts.slice(i, i + batchSize);
        const vectors = shape.read(await post(shape.body(batch)), batch.length);
        for (const v of vectors) out.push(normalized(v, config.dimensions, config));
      }
      return out;
    },
  };
}

interface Shape {
  endpoint: string;
  body(texts: readonly string[]): unknown;
  /** The vectors of a response, in input order; throws when the response is not that shape. */
  read(json: unknown, n: number): number[][];
}

function ollamaShape(config: EmbeddingsConfig): Shape {
  return {
    endpoint: joinUrl(config.url, "/api/embed"),
    body: (texts) => ({ model: config.model, input: texts }),
    read: (json, n) => {
      const list = (json as { embeddings?: unknown } | null)?.embeddings;
      return checked(list, n, config);
    },
  };
}

function openAiShape(config: EmbeddingsConfig): Shape {
  const base = config.url.replace(/\/+$/, "").replace(/\/v1$/, "");
  return {
    endpoint: joinUrl(base, "/v1/embeddings"),
    body: (texts) => ({
      model: config.model,
      input: texts,
      ...(config.dimensions ? { dimensions: config.dimensions } : {}),
    }),
    read: (json, n) => {
      const data = (json as { data?: unknown } | null)?.data;
      if (!Array.isArray(data)) return checked(undefined, n, config);
      // Servers may answer out of order: `index` says which input each vector belongs to.
      const sorted = [...data].sort(
        (a, b) =>
          Number((a as { index?: number }).index ?? 0) -
          Number((b as { index?: number }).index ?? 0),
      );
      return checked(
        sorted.map((d) => (d as { embedding?: unknown }).embedding),
        n,
        config,
      );
    },
  };
}

function checked(list: unknown, n: number, config: EmbeddingsConfig): number[][] {
  if (
    !Array.isArray(list) ||
    list.length !== n ||
    !list.every((v) => Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === "number"))
  ) {
    throw new KbError(
      "internal",
      `the embedding provider (${config.provider}, model ${config.model}) answered without ${n} vectors; check search.embeddings.provider and url`,
    );
  }
  return list as number[][];
}

/**
 * Unit length, so cosine similarity is a dot product; null for an unusable vector. Scaled by
 * the largest component first: squares of large components would overflow to Infinity.
 */
function normalized(
  v: number[],
  dims: number | undefined,
  config: EmbeddingsConfig,
): Float32Array | null {
  if (dims !== undefined && v.length !== dims) {
    throw new KbError(
      "internal",
      `the embedding model ${config.model} returned ${v.length} dimensions, search.embeddings.dimensions says ${dims}`,
    );
  }
  if (vectorDefect(v) !== null) return null;
  let max = 0;
  for (const x of v) max = Math.max(max, Math.abs(x));
  let norm = 0;
  for (const x of v) norm += (x / max) ** 2;
  const length = Math.sqrt(norm);
  const out = new Float32Array(v.length);
  v.forEach((x, i) => {
    out[i] = x / max / length;
  });
  return out;
}

function joinUrl(base: string, path: string): string {
  return base.replace(/\/+$/, "") + path;
}

/** The system error code under fetch's generic "fetch failed" (ECONNREFUSED, ENOTFOUND, …). */
function causeOf(err: unknown): string {
  const cause = (
    err as { cause?: { code?: string; message?: string; errors?: Array<{ code?: string }> } }
  ).cause;
  return cause?.code ?? cause?.errors?.[0]?.code ?? cause?.message ?? (err as Error).message;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
