/** Semantic search (docs/search.md): embedding providers, vector store, background embedding. */
export type { EmbeddingProviderKind, EmbeddingsConfig } from "./config.js";
export { KbEmbeddings, type KbEmbeddingsOptions, type SemanticResult } from "./kb-embeddings.js";
export { createEmbeddingClient, type EmbeddingClient } from "./provider.js";
