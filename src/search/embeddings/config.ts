/**
 * Settings of the embedding provider (config `search.embeddings`, resolved by the CLI, which also
 * reads the API key from the variable `api_key_env` names). Pure data.
 */

export type EmbeddingProviderKind = "ollama" | "openai";

export interface EmbeddingsConfig {
  /** `ollama` (POST <url>/api/embed) or `openai` (POST <url>/v1/embeddings, any compatible server). */
  provider: EmbeddingProviderKind;
  /** Base URL, e.g. `http://127.0.0.1:11434`; a trailing `/v1` on an openai URL is accepted. */
  url: string;
  model: string;
  /** Expected vector length; a vector of another length is refused. OpenAI: also sent. */
  dimensions?: number;
  /** Bearer token (never logged; the CLI read it from the env var named by api_key_env). */
  apiKey?: string;
  /** Texts per request. Default 32. */
  batchSize?: number;
  /** Per-request timeout in ms. Default 30,000. */
  timeoutMs?: number;
  /** Attempts per request on a network error, 429 or 5xx. Default 3. */
  attempts?: number;
  /** Seconds between background passes that catch up with reconciles. Default 10. */
  pollMs?: number;
}

export const DEFAULT_BATCH_SIZE = 32;
export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_ATTEMPTS = 3;
export const DEFAULT_POLL_MS = 10_000;
