import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { VISIBLE_ALL, type Visibility } from "../../../src/kb/core/types.js";
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
afterEach(async () => {
  await emb?.close();
  index?.close();
});

function setup(provider: "ollama" | "openai" = "ollama"): KbEmbeddings {
  index = openSearchIndex(":memory:");
  const client = createEmbeddingClient({ provider, url: server.url, model: "fake", batchSize: 8 });
  emb = new KbEmbeddings({
    db: () => index.database(),
    client,
    keyword: (q) => index.search(q),
    logger: memoryLogger(),
    kb: "test",
  });
  return emb;
}

const vehicles = [
  doc("garage/sedan", {
    frontmatter: { type: "note", title: "Family sedan" },
    body: "## Service\nThe automobile goes to the workshop every spring.\n\n## Tyres\nWinter tyres in the shed.",
  }),
  doc("garage/bike", {
    frontmatter: { type: "note", title: "Bicycle" },
    body: "A bicycle with two wheels and a bell.",
  }),
  doc("pets/tom", {
    frontmatter: { type: "pet", title: "Tom" },
    body: "Tom is a feline who sleeps all day.",
  }),
];

const ask = (
  query: string,
  mode: "semantic" | "hybrid",
  extra: { visibility?: Visibility; scope?: string; limit?: number } = {},
) =>
  emb.search(
    {
      query,
      limit: extra.limit ?? 10,
      visibility: extra.visibility ?? VISIBLE_ALL,
      scope: extra.scope,
    },
    mode,
  );

describe("KbEmbeddings", () => {
  for (const provider of ["ollama", "openai"] as const) {
    it(`${provider}: semantic search finds meaning keyword search misses`, async () => {
      setup(provider);
      index.reconcile(vehicles);
      await emb.pass();
      expect(index.search({ query: "car", limit: 10, visibility: VISIBLE_ALL }).results).toEqual(
        [],
      );
      const found = await ask("car", "semantic");
      expect(found.match).toBe("semantic");
      expect(found.results[0]?.id).toBe("garage/sedan");
      expect(found.results[0]?.snippet).toContain("automobile");
      expect((await ask("cat", "semantic")).results[0]?.id).toBe("pets/tom");
    });
  }

  it("an unchanged KB costs no provider call, even after a forced re-embed or a rebuild", async () => {
    setup();
    index.reconcile(vehicles);
    const first = await emb.pass();
    expect(first.concepts).toBe(3);
    expect(first.chunksEmbedded).toBeGreaterThan(3); // sections
    const before = server.requests;
    expect(await emb.pass()).toEqual({ concepts: 0, chunksEmbedded: 0, rejected: [] });
    emb.store.forgetDocs(); // every concept re-chunked: every vector is found by its hash
    expect(await emb.pass()).toEqual({ concepts: 3, chunksEmbedded: 0, rejected: [] });
    index.replaceAll(vehicles.map((d) => ({ doc: d }))); // a reindex keeps the vectors
    expect(await emb.pass()).toEqual({ concepts: 0, chunksEmbedded: 0, rejected: [] });
    expect(server.requests).toBe(before);
  });

  it("a changed concept re-embeds only its changed sections; a removed one leaves the results", async () => {
    setup();
    index.reconcile(vehicles);
    await emb.pass();
    const sedan = vehicles[0] as (typeof vehicles)[number];
    index.upsert(
      doc("garage/sedan", {
        frontmatter: sedan.frontmatter,
        body: `${sedan.body}\n\n## Insurance\nPaid in March.`,
      }),
    );
    index.remove("pets/tom");
    expect(await emb.pass()).toEqual({ concepts: 1, chunksEmbedded: 1, rejected: [] });
    expect((await ask("feline", "semantic")).results.map((r) => r.id)).not.toContain("pets/tom");
    expect((await ask("insurance", "semantic")).results[0]?.id).toBe("garage/sedan");
  });

  it("after a search loaded the vectors, later passes patch them: same answers as a reload", async () => {
    setup();
    index.reconcile(vehicles);
    await emb.pass();
    expect((await ask("feline", "semantic")).results[0]?.id).toBe("pets/tom"); // loads the matrix
    index.remove("pets/tom");
    index.upsert(
      doc("pets/rex", { frontmatter: { type: "pet", title: "Rex" }, body: "A kitten, really." }),
    );
    index.upsert(
      doc("garage/bike", {
        frontmatter: { type: "note", title: "Bicycle" },
        body: "## Doctor\nThe physician rides it.",
      }),
    );
    await emb.pass();
    const patched = await ask("cat doctor", "semantic");
    expect(patched.results.map((r) => r.id)).not.toContain("pets/tom");
    emb.store.forgetDocs(); // the next query reloads every vector from the file
    await emb.pass();
    const reloaded = await ask("cat doctor", "semantic");
    expect(patched.results).toEqual(reloaded.results);
    expect(
      reloaded.results
        .slice(0, 2)
        .map((r) => r.id)
        .sort(),
    ).toEqual(["garage/bike", "pets/rex"]);
  });

  it("hybrid fuses keyword and semantic rankings", async () => {
    setup();
    index.reconcile(vehicles);
    await emb.pass();
    const found = await ask("bicycle vehicle", "hybrid");
    expect(found.match).toBe("hybrid");
    const ids = found.results.map((r) => r.id);
    expect(ids.slice(0, 2).sort()).toEqual(["garage/bike", "garage/sedan"]);
  });

  it("a narrow role gets a full page: hidden neighbours are filtered before the limit (D118)", async () => {
    setup();
    const hidden = Array.from({ length: 30 }, (_, i) =>
      doc(`secret/car-${i}`, {
        frontmatter: { type: "note", title: `Car ${i}` },
        body: "car car car",
      }),
    );
    const visible = Array.from({ length: 8 }, (_, i) =>
      doc(`public/note-${i}`, {
        frontmatter: { type: "note", title: `Note ${i}` },
        body: `A vehicle story number ${i} with other words.`,
      }),
    );
    index.reconcile([...hidden, ...visible]);
    await emb.pass();
    const narrow: Visibility = {
      all: false,
      rules: [{ maps: ["public"], journals: [], types: [] }],
    };
    for (const mode of ["semantic", "hybrid"] as const) {
      const found = await ask("car", mode, { visibility: narrow, limit: 5 });
      expect(found.results, mode).toHaveLength(5);
      expect(
        found.results.every((r) => r.id.startsWith("public/")),
        mode,
      ).toBe(true);
    }
    const all = await ask("car", "semantic", { limit: 5 });
    expect(all.results.every((r) => r.id.startsWith("secret/"))).toBe(true);
    const scoped = await ask("car", "semantic", { scope: "public", limit: 3 });
    expect(scoped.results.map((r) => r.id.split("/")[0])).toEqual(["public", "public", "public"]);
  });

  it("close does not hang on a slow provider and the late answer writes nothing", async () => {
    index = openSearchIndex(":memory:");
    const logger = memoryLogger();
    emb = new KbEmbeddings({
      db: () => index.database(),
      client: createEmbeddingClient({ provider: "ollama", url: server.url, model: "slow" }),
      keyword: (q) => index.search(q),
      logger,
      kb: "test",
    });
    index.reconcile(vehicles);
    server.delayMs = 3_000;
    emb.kick();
    await new Promise((r) => setTimeout(r, 100)); // the request is under way
    const started = Date.now();
    await emb.close();
    expect(Date.now() - started).toBeLessThan(2_600);
    index.close(); // as closeMount does next
    await new Promise((r) => setTimeout(r, 3_200)); // the provider answers after the close
    server.delayMs = 0;
    expect(logger.lines.filter((l) => l.startsWith("warn:"))).toEqual([]);
  });

  it("a failing provider pauses the background pass with one warning; the next pass catches up", async () => {
    index = openSearchIndex(":memory:");
    const logger = memoryLogger();
    emb = new KbEmbeddings({
      db: () => index.database(),
      client: createEmbeddingClient({
        provider: "ollama",
        url: server.url,
        model: "f",
        attempts: 1,
      }),
      keyword: (q) => index.search(q),
      logger,
      kb: "test",
      pollMs: 60_000,
    });
    index.reconcile(vehicles);
    server.failNext(1);
    emb.kick();
    await emb.idle();
    expect(logger.lines.filter((l) => l.startsWith("warn:"))).toHaveLength(1);
    expect(emb.store.staleConcepts()).toHaveLength(3);
    emb.kick();
    await emb.idle();
    expect(emb.store.staleConcepts()).toHaveLength(0);
    expect(logger.lines.some((l) => l.includes("resumed"))).toBe(true);
  });
});
