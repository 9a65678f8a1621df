import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEmbeddingClient } from "../../../src/search/embeddings/provider.js";
import { DIMS, type EmbeddingServer, embedText, startEmbeddingServer } from "./embedding-server.js";

let server: EmbeddingServer;
beforeAll(async () => {
  server = await startEmbeddingServer();
});
afterAll(() => server.close());

const texts = Array.from({ length: 10 }, (_, i) => `text number ${i} about cars`);

function unit(v: number[]): number[] {
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
}

describe("embedding providers", () => {
  for (const provider of ["ollama", "openai"] as const) {
    it(`${provider}: one unit vector per text, in input order, in batches`, async () => {
      const before = server.requests;
      const client = createEmbeddingClient({ provider, url: server.url, model: "m", batchSize: 4 });
      const vectors = await client.embed(texts);
      expect(vectors).toHaveLength(10);
      vectors.forEach((v, i) => {
        expect(v).toHaveLength(DIMS);
        const want = unit(embedText(texts[i] as string));
        for (const [d, x] of want.entries()) expect(v?.[d]).toBeCloseTo(x, 5);
      });
      expect(server.requests - before).toBe(3); // 4 + 4 + 2
      expect(client.requests).toBe(3);
    });
  }

  it("openai: accepts a base URL ending in /v1 and sends the key as a bearer token", async () => {
    const client = createEmbeddingClient({
      provider: "openai",
      url: `${server.url}/v1/`,
      model: "m",
      apiKey: "sk-planted-secret",
    });
    await client.embed(["x"]);
    expect(server.auth.at(-1)).toBe("Bearer sk-planted-secret");
  });

  it("retries a 500 and succeeds", async () => {
    const client = createEmbeddingClient({ provider: "ollama", url: server.url, model: "m" });
    server.failNext(2);
    const [v] = await client.embed(["retry me"]);
    expect(v).toHaveLength(DIMS);
    expect(client.requests).toBe(3);
  });

  it("gives up after the attempts with a clear error that never shows the key", async () => {
    const client = createEmbeddingClient({
      provider: "openai",
      url: server.url,
      model: "m",
      apiKey: "sk-planted-secret",
      attempts: 2,
    });
    server.failNext(5, 503);
    const err = await client.embed(["x"]).catch((e: Error) => e);
    server.failNext(0);
    expect(String(err)).toMatch(/embedding provider \(openai, model m\) failed: HTTP 503/);
    expect(String(err)).not.toContain("sk-planted-secret");
    expect(client.requests).toBe(2);
  });

  it("does not retry a client fault (400)", async () => {
    const client = createEmbeddingClient({ provider: "ollama", url: server.url, model: "m" });
    server.failNext(1, 400);
    await expect(client.embed(["x"])).rejects.toThrow(/HTTP 400/);
    expect(client.requests).toBe(1);
  });

  it("times out a provider that does not answer", async () => {
    const client = createEmbeddingClient({
      provider: "ollama",
      url: server.url,
      model: "m",
      timeoutMs: 100,
      attempts: 1,
    });
    server.delayMs = 1_000;
    const started = Date.now();
    const err = await client.embed(["slow"]).catch((e: Error) => e);
    server.delayMs = 0;
    expect(String(err)).toMatch(/no answer within 100 ms/);
    expect(Date.now() - started).toBeLessThan(900);
  });

  it("refuses vectors of the wrong length when dimensions is set", async () => {
    const client = createEmbeddingClient({
      provider: "ollama",
      url: server.url,
      model: "m",
      dimensions: 384,
    });
    await expect(client.embed(["x"])).rejects.toThrow(/returned 64 dimensions.*says 384/);
  });

  it("names an unreachable provider", async () => {
    const gone = await startEmbeddingServer();
    await gone.close(); // a port nothing listens on any more
    const client = createEmbeddingClient({
      provider: "ollama",
      url: gone.url,
      model: "m",
      attempts: 1,
    });
    await expect(client.embed(["x"])).rejects.toThrow(/failed: unreachable \(ECONNREFUSED\)/);
  });
});
