/**
 * `search.embeddings` (docs/search.md): the embedding provider of semantic and hybrid
 * search, server-wide. The API key is read here, from the variable `api_key_env` names, and
 * passed down; it is never written to a log or an error.
 */
import { z } from "zod";
import { SettingError } from "../../common/errors.js";
import type { EmbeddingsConfig } from "../../search/embeddings/config.js";
import type { Settings } from "./pick.js";
import type { GoServeFlags } from "./types.js";

export const embeddingsSchema = z.strictObject({
  provider: z.enum(["ollama", "openai"]),
  /** Base URL of the provider, e.g. http://127.0.0.1:11434 (Ollama), http://host:8080 (llama.cpp). */
  url: z.string().min(1),
  model: z.string().min(1),
  dimensions: z.number().int().min(1).max(65_536).optional(),
  /** Name of the environment variable holding the bearer token (hosted APIs). */
  api_key_env: z.string().min(1).optional(),
  batch_size: z.number().int().min(1).max(2048).optional(),
  timeout_seconds: z.number().positive().max(600).optional(),
});

export type EmbeddingsSection = z.infer<typeof embeddingsSchema>;

/** Go's model default for `search.ollama_url` without `ollama_model`. */
export const GO_OLLAMA_MODEL = "nomic-embed-text";

/** The YAML `search` block: our `embeddings`, or Go's `ollama_url` / `ollama_model`. */
export interface SearchSection {
  embeddings?: EmbeddingsSection;
  ollama_url?: string;
  ollama_model?: string;
}

/**
 * null when nothing is configured: semantic/hybrid then answer not_configured. `embeddings`
 * wins; else Go's keys (`--ollama` > CARTOGRAPHER_OLLAMA > `search.ollama_url`, the model
 * CARTOGRAPHER_OLLAMA_MODEL > `search.ollama_model`), where an empty URL is unset, as in Go.
 */
export function resolveEmbeddings(
  search: SearchSection | undefined,
  settings: Settings,
  flags: Pick<GoServeFlags, "ollama"> = {},
): EmbeddingsConfig | null {
  const goUrl = settings.pick({
    flag: ["--ollama", flags.ollama],
    env: "CARTOGRAPHER_OLLAMA",
    key: ["search.ollama_url", search?.ollama_url],
  });
  const goModel = settings.pick(
    { env: "CARTOGRAPHER_OLLAMA_MODEL", key: ["search.ollama_model", search?.ollama_model] },
    GO_OLLAMA_MODEL,
  );
  const section: EmbeddingsSection | undefined =
    search?.embeddings ??
    (goUrl ? { provider: "ollama", url: goUrl.value, model: goModel.value } : undefined);
  if (!section) return null;
  const urlSource = search?.embeddings ? "search.embeddings.url" : (goUrl?.source as string);
  let url: URL;
  try {
    url = new URL(section.url);
  } catch {
    url = new URL("invalid:");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new SettingError(
      `${urlSource}: '${section.url}' is not an http(s) URL; e.g. http://127.0.0.1:11434`,
    );
  let apiKey: string | undefined;
  if (section.api_key_env !== undefined) {
    apiKey = settings.variable(section.api_key_env)?.value;
    if (apiKey === undefined)
      throw new SettingError(
        `search.embeddings.api_key_env: the environment variable ${section.api_key_env} is not set; export it or remove the key`,
      );
  }
  return {
    provider: section.provider,
    url: section.url,
    model: section.model,
    ...(section.dimensions !== undefined ? { dimensions: section.dimensions } : {}),
    ...(apiKey !== undefined ? { apiKey } : {}),
    ...(section.batch_size !== undefined ? { batchSize: section.batch_size } : {}),
    ...(section.timeout_seconds !== undefined
      ? { timeoutMs: Math.round(section.timeout_seconds * 1000) }
      : {}),
  };
}
