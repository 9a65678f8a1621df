/**
 * Attaches semantic search to a mounted KB when `search.embeddings` is configured: a
 * KbEmbeddings over the KB's index file, started once the index build is ready, kicked by
 * every write (KbRuntime.syncIndex) and polling for reconciles. Imported only when configured:
 * a keyword-only server never loads the embeddings code.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "../logger.js";
import type { EmbeddingsConfig } from "../search/embeddings/config.js";
import type { KbRuntime } from "./kb-runtime.js";

export async function attachEmbeddings(
  runtime: KbRuntime,
  config: EmbeddingsConfig,
  opts: { logger: Logger; kb: string },
): Promise<void> {
  const { index } = runtime;
  const { KbEmbeddings, createEmbeddingClient } = await import("../search/embeddings/index.js");
  const root = runtime.store.root;
  const embeddings = new KbEmbeddings({
    db: () => index.database(),
    client: createEmbeddingClient(config),
    keyword: (query) => index.search(query),
    logger: opts.logger,
    kb: opts.kb,
    ...(config.pollMs !== undefined ? { pollMs: config.pollMs } : {}),
    // A failed build still starts the passes: they embed what is indexed.
    indexReady: async () => {
      const { indexStatus } = runtime;
      while (!indexStatus.ready && indexStatus.progress.state !== "failed")
        await indexStatus.settled(60_000);
    },
    exists: (path) => existsSync(join(root, path)),
  });
  runtime.embeddings = embeddings;
  embeddings.start();
}
