/** Semantic search: embedding providers, the vector store, background embedding (issue 15). */
export type { EmbeddingProviderKind, EmbeddingsConfig } from "./config.js";
export { KbEmbeddings, type KbEmbeddingsOptions, type SemanticResult } from "./kb-embeddings.js";
export { createEmbeddingClient, type EmbeddingClient } from "./provider.js";
