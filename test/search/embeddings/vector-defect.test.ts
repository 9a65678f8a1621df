/**
 * An all-zero or non-finite vector from the embedding provider is refused like a wrong answer:
 * never stored (it would rank its concept last forever), the concept stays stale and a later
 * pass asks again; one warning per burst, not per pass or query. Vectors stored before the
 * rule are dropped when the vectors load. A real HTTP provider on 127.0.0.1, real SQLite.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { VISIBLE_ALL } from "../../../src/kb/core/types.js";
import { memoryLogger } from "../../../src/logger.js";
import { KbEmbeddings } from "../../../src/search/embeddings/kb-embeddings.js";
import { createEmbeddingClient } from "../../../src/search/embeddings/provider.js";
import { openSearchIndex, type SqliteSearchIndex } from "../../../src/search/sqlite-index.js";
import { doc } from "../docs.js";
import { type EmbeddingServer, startEmbeddingServer } from "./embedding-server.js";

let server: EmbeddingServer;
beforeAll(async () => {
  server = await startEmbeddingServer();
});
afterAll(() => server.close());

let index: SqliteSearchIndex;
let emb: KbEmbeddings;
let logger: ReturnType<typeof memoryLogger>;
afterEach(async () => {
  server.unusable.clear();
  await emb?.close();
  index?.close();
});

function setup(provider: "ollama" | "openai" = "ollama"): KbEmbeddings {
  index = openSearchIndex(":memory:");
  logger = memoryLogger();
  emb = new KbEmbeddings({
    db: () => index.database(),
    client: createEmbeddingClient({ provider, url: server.url, model: "fake", batchSize: 8 }),
    keyword: (q) => index.search(q),
    logger,
    kb: "test",
    pollMs: 60_000,
  });
  index.reconcile([
    doc("garage/sedan", {
      frontmatter: { type: "note", title: "Family sedan" },
      body: "The automobile goes to the workshop every spring.",
    }),
    doc("pets/tom", {
      frontmatter: { type: "pet", title: "Tom" },
      body: "Tom is a feline who sleeps all day, a glitchword.",
    }),
  ]);
  return emb;
}

const warnings = () => logger.lines.filter((l) => l.startsWith("warn:"));
const semantic = (query: string) =>
  emb.search({ query, limit: 10, visibility: VISIBLE_ALL }, "semantic");
const storedVectors = () =>
  index.database().prepare("SELECT count(*) FROM emb_vectors").pluck().get() as number;

describe("unusable embedding vectors", () => {
  for (const [provider, kind] of [
    ["ollama", "zero"],
    ["openai", "infinite"],
  ] as const) {
    it(`${provider}, ${kind}: not stored, the concept stays stale and is embedded once the provider answers well`, async () => {
      setup(provider);
      server.unusable.set("glitchword", kind);
      const first = await emb.pass();
      expect(first.rejected).toEqual(["pets/tom"]);
      expect(emb.store.staleConcepts()).toEqual(["pets/tom"]);
      expect(storedVectors()).toBe(1);
      expect((await semantic("car")).results.map((r) => r.id)).toEqual(["garage/sedan"]);

      server.unusable.clear();
      const second = await emb.pass();
      expect(second.rejected).toEqual([]);
      expect(emb.store.staleConcepts()).toEqual([]);
      expect((await semantic("cat")).results[0]?.id).toBe("pets/tom");
    });
  }

  it("warns once per burst of unusable vectors, however many passes it lasts", async () => {
    setup();
    server.unusable.set("glitchword", "zero");
    for (let i = 0; i < 3; i++) {
      emb.kick();
      await emb.idle();
    }
    expect(warnings()).toHaveLength(1);
    expect(warnings()[0]).toContain("pets/tom");
    expect(warnings()[0]).toContain("all zero or not finite");
    server.unusable.clear();
    emb.kick();
    await emb.idle();
    expect(logger.lines.some((l) => l.includes("every vector usable again"))).toBe(true);
    server.unusable.set("glitchword", "zero");
    index.reconcile([
      doc("pets/tom", {
        frontmatter: { type: "pet", title: "Tom" },
        body: "Tom changed, still a glitchword.",
      }),
    ]);
    emb.kick();
    await emb.idle();
    expect(warnings()).toHaveLength(2); // a new burst
  });

  it("a query whose vector is unusable fails with a clear error and logs nothing", async () => {
    setup();
    await emb.pass();
    server.unusable.set("glitchword", "zero");
    await expect(semantic("glitchword")).rejects.toThrow(/unusable vector .*mode keyword/);
    await expect(semantic("glitchword")).rejects.toThrow(/unusable vector/);
    expect(warnings()).toEqual([]);
  });

  it("an all-zero vector stored before the rule is dropped when the vectors load and embedded again", async () => {
    setup();
    await emb.pass();
    const db = index.database();
    const tomChunk = db
      .prepare("SELECT hash FROM emb_chunks WHERE concept = 'pets/tom'")
      .pluck()
      .get() as string;
    db.prepare("UPDATE emb_vectors SET vector = zeroblob(length(vector)) WHERE hash = ?").run(
      tomChunk,
    );
    // A fresh store, as after a restart: the vectors load from the file.
    const fresh = new KbEmbeddings({
      db: () => index.database(),
      client: createEmbeddingClient({ provider: "ollama", url: server.url, model: "fake" }),
      keyword: (q) => index.search(q),
      logger,
      kb: "test",
      pollMs: 60_000,
    });
    await fresh.search({ query: "car", limit: 5, visibility: VISIBLE_ALL }, "semantic");
    expect(fresh.store.staleConcepts()).toEqual(["pets/tom"]);
    await fresh.pass();
    const found = await fresh.search(
      { query: "cat", limit: 5, visibility: VISIBLE_ALL },
      "semantic",
    );
    expect(found.results[0]?.id).toBe("pets/tom");
    await fresh.close();
  });
});
