/**
 * Provider answers are read under a byte cap: a real HTTP server on 127.0.0.1 that streams more
 * than the cap (with or without Content-Length) is refused without being buffered whole, and
 * discovery turns that into its own fail-closed error.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ProviderAnswerError, readCappedJson } from "../../../src/auth/oauth/capped-json.js";
import { fetchJson, OAuthDiscoveryError } from "../../../src/auth/oauth/discovery.js";

let server: Server;
let base: string;
let sentChunks = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === "/small") {
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ issuer: "https://idp.example", active: true }));
      return;
    }
    if (req.url === "/declared") {
      res.setHeader("content-length", String(10 * 1024 * 1024));
      res.write("{");
      return; // never finishes: the declared size alone must refuse it
    }
    if (req.url === "/not-json") {
      res.end("<html>sign in</html>");
      return;
    }
    // /stream: an endless JSON string, chunked, no Content-Length.
    sentChunks = 0;
    res.write('{"x":"');
    const chunk = "a".repeat(16 * 1024);
    const timer = setInterval(() => {
      sentChunks++;
      if (!res.write(chunk)) return;
    }, 1);
    res.on("close", () => clearInterval(timer));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

/** The error `p` rejects with; a promise that resolves fails the test. */
async function refusal(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (err) {
    return err as Error;
  }
  throw new Error("expected a refusal, got an answer");
}

const get = (path: string) => fetch(`${base}${path}`, { signal: AbortSignal.timeout(10_000) });

describe("readCappedJson", () => {
  it("parses an answer under the cap", async () => {
    expect(await readCappedJson(await get("/small"), "idp")).toEqual({
      issuer: "https://idp.example",
      active: true,
    });
  });

  it("refuses a streamed answer once it passes the cap, long before the stream ends", async () => {
    const err = await refusal(readCappedJson(await get("/stream"), "idp", 64 * 1024));
    expect(err).toBeInstanceOf(ProviderAnswerError);
    expect(err.message).toBe("idp answered more than 65536 bytes");
    expect(sentChunks).toBeLessThan(64);
  });

  it("refuses a declared size over the cap without reading the body", async () => {
    const err = await refusal(readCappedJson(await get("/declared"), "idp", 64 * 1024));
    expect(err).toBeInstanceOf(ProviderAnswerError);
    expect(err.message).toBe("idp answered 10485760 bytes, over 65536");
  });

  it("names an answer that is not JSON", async () => {
    const err = await refusal(readCappedJson(await get("/not-json"), "idp"));
    expect(err.message).toBe("idp answered something that is not JSON");
  });
});

describe("discovery under the cap", () => {
  it("a metadata document over the cap is a discovery error (the caller denies)", async () => {
    const err = await refusal(fetchJson(`${base}/stream`, 10_000));
    expect(err).toBeInstanceOf(OAuthDiscoveryError);
    expect(err.message).toMatch(/answered more than 262144 bytes/);
  });
});
