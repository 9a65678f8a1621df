/**
 * Opaque access tokens through RFC 7662 introspection, against a real OpenID provider
 * (oidc-provider on 127.0.0.1 issuing opaque tokens, introspected by a confidential client):
 * the MCP SDK client signs in and calls tools; the principal is the one the JWT path gives;
 * revoked, expired and unknown tokens are refused; an endpoint that is down, hangs or refuses
 * the client secret refuses the token quickly while the server keeps serving; answers are
 * cached (counted at the provider) no longer than the token lives, and the token appears in no
 * log or audit record.
 */
import { createServer, type Server } from "node:net";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { IntrospectionSettings } from "../../../src/auth/oauth/types.js";
import { postInit } from "../../http/helpers.js";
import { textOf } from "../../support/mcp-kit.js";
import { ADMIN, oauthSettings, sdkSignIn, startOAuthServer } from "./fixture.js";
import { RS_CLIENT, RS_SECRET, startIdp, type TestIdp } from "./idp.js";

type Cart = Awaited<ReturnType<typeof startOAuthServer>>;

let idp: TestIdp;
let cached: Cart;
let uncached: Cart;

const introspection = (extra: Partial<IntrospectionSettings> = {}): IntrospectionSettings => ({
  clientId: RS_CLIENT,
  clientSecret: RS_SECRET,
  cacheSeconds: 60,
  ...extra,
});

const serverWith = (extra: Partial<IntrospectionSettings>, timeoutMs = 2_000) =>
  startOAuthServer(
    oauthSettings(idp.issuer, { introspection: introspection(extra), fetchTimeoutMs: timeoutMs }),
  );

beforeAll(async () => {
  idp = await startIdp();
  idp.format = "opaque";
  cached = await serverWith({});
  uncached = await serverWith({ cacheSeconds: 0 });
}, 60_000);
afterAll(async () => {
  await cached?.close();
  await uncached?.close();
  await idp?.close();
});

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
const status = async (cart: Cart, token: string) =>
  (await postInit(cart.server.port, "/mcp/main", bearer(token))).status;

/** An opaque access token for `account` through the SDK client's own sign-in at `cart`. */
async function opaqueToken(cart: Cart, account = "alice"): Promise<string> {
  idp.loginAs = account;
  const { client, provider } = await sdkSignIn(idp, cart.server.url, "/mcp/main");
  await client.close();
  const token = provider.saved?.access_token as string;
  expect(token.split(".")).toHaveLength(1); // opaque: not a JWS
  return token;
}

async function conceptList(client: Client): Promise<string> {
  return textOf(await client.callTool({ name: "concept_list", arguments: { kb: "main" } }));
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
  const port = (s.address() as { port: number }).port;
  await new Promise((resolve) => s.close(resolve));
  return port;
}

describe("opaque tokens (RFC 7662 introspection)", () => {
  it("the SDK client signs in with an opaque token and calls tools; audited as oauth:<host>:<sub>, the token in no log or record", async () => {
    idp.loginAs = "alice";
    const { client, provider } = await sdkSignIn(idp, cached.server.url, "/mcp/routed");
    const token = provider.saved?.access_token as string;
    expect(token.split(".")).toHaveLength(1);
    const read = await client.callTool({
      name: "concept_read",
      arguments: { kb: "main", id: "alpha/in-note" },
    });
    expect(read.isError).toBeFalsy();
    await client.close();
    const ids = cached.audit.records.map((r) => r.principal_id);
    expect(ids).toContain(`oauth:${new URL(idp.issuer).host}:alice`);
    const logged = [...cached.logger.lines, JSON.stringify(cached.audit.records)].join("\n");
    expect(logged).not.toContain(token);
  }, 60_000);

  it("a narrow role via introspection sees exactly what the JWT path gives, as the same principal", async () => {
    idp.loginAs = "alice";
    idp.format = "jwt";
    const viaJwt = await sdkSignIn(idp, cached.server.url, "/mcp/routed");
    idp.format = "opaque";
    const viaOpaque = await sdkSignIn(idp, cached.server.url, "/mcp/routed");
    expect(viaJwt.provider.saved?.access_token?.split(".")).toHaveLength(3);
    const before = cached.audit.records.length;
    const jwtList = await conceptList(viaJwt.client);
    const jwtId = cached.audit.records.at(-1)?.principal_id;
    const opaqueList = await conceptList(viaOpaque.client);
    const opaqueId = cached.audit.records.at(-1)?.principal_id;
    await viaJwt.client.close();
    await viaOpaque.client.close();
    expect(cached.audit.records.length).toBeGreaterThan(before);
    expect(opaqueList).toBe(jwtList);
    expect(opaqueList).toContain("alpha/in-note");
    expect(opaqueList).not.toContain("beta/out-note");
    expect(opaqueId).toBe(jwtId);
    expect(opaqueId).toBe(`oauth:${new URL(idp.issuer).host}:alice`);
  }, 60_000);

  it("reuses an answer within cache_seconds; cache_seconds 0 asks every time; static tokens and JWTs never reach the provider", async () => {
    const first = idp.introspections;
    const token = await opaqueToken(cached); // the sign-in's own requests use it too
    for (let i = 0; i < 3; i++) expect(await status(cached, token)).toBe(200);
    expect(idp.introspections - first).toBe(1);
    const other = await opaqueToken(uncached);
    const seen = idp.introspections;
    for (let i = 0; i < 3; i++) expect(await status(uncached, other)).toBe(200);
    expect(idp.introspections - seen).toBe(3);
    idp.format = "jwt";
    const jwt = await idp.clientToken("svc-role", `${cached.server.url}/mcp`).finally(() => {
      idp.format = "opaque";
    });
    const quiet = idp.introspections;
    expect(await status(cached, ADMIN)).toBe(200);
    expect(await status(cached, jwt)).toBe(200);
    expect(idp.introspections).toBe(quiet);
  }, 60_000);

  it("refuses a token revoked at the provider", async () => {
    const token = await opaqueToken(uncached);
    expect(await status(uncached, token)).toBe(200);
    await idp.revoke(token);
    expect(await status(uncached, token)).toBe(401);
    expect(uncached.logger.lines.join("\n")).toMatch(
      /access token refused: the token is not active/,
    );
  }, 60_000);

  it("refuses an expired token even while its answer is cached (the cache ends at exp)", async () => {
    idp.accessTokenTTL = 2;
    let token: string;
    try {
      token = await opaqueToken(cached);
    } finally {
      idp.accessTokenTTL = 300;
    }
    expect(await status(cached, token)).toBe(200);
    const asked = idp.introspections;
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(await status(cached, token)).toBe(401);
    expect(idp.introspections).toBe(asked + 1);
  }, 60_000);

  it("refuses a token issued for another resource (aud)", async () => {
    const forCached = await opaqueToken(cached);
    expect(await status(uncached, forCached)).toBe(401);
    expect(uncached.logger.lines.join("\n")).toMatch(/refused: unexpected "aud" claim value/);
  }, 60_000);

  it("asks the provider about an unknown opaque bearer and refuses it with the standard challenge", async () => {
    const asked = idp.introspections;
    const r = await postInit(cached.server.port, "/mcp/main", bearer("not-a-token-anyone-issued"));
    expect(r.status).toBe(401);
    expect(idp.introspections).toBe(asked + 1); // asked, answered inactive, not cached
    expect(r.headers["www-authenticate"]).toMatch(/^Bearer scope=.*resource_metadata=/);
  });
});

describe("introspection fails closed", () => {
  it("a wrong client secret refuses every opaque token", async () => {
    const token = await opaqueToken(cached);
    const wrong = await serverWith({ clientSecret: "not-the-secret" });
    try {
      expect(await status(wrong, token)).toBe(401);
      const lines = wrong.logger.lines.join("\n");
      expect(lines).toMatch(
        /introspection failed, the opaque token is refused: .* answered HTTP 401/,
      );
      expect(lines).not.toContain("not-the-secret");
      expect(lines).not.toContain(token);
    } finally {
      await wrong.close();
    }
  }, 60_000);

  it("an endpoint that is down refuses at once; static tokens keep working", async () => {
    const token = await opaqueToken(cached);
    const down = await serverWith({
      endpoint: `http://127.0.0.1:${await closedPort()}/introspect`,
    });
    try {
      const started = Date.now();
      expect(await status(down, token)).toBe(401);
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(down.logger.lines.join("\n")).toMatch(/introspection failed.*ECONNREFUSED/);
      expect(await status(down, ADMIN)).toBe(200);
    } finally {
      await down.close();
    }
  }, 60_000);

  it("an endpoint that never answers refuses within the timeout, once for concurrent requests, while the server keeps serving", async () => {
    const token = await opaqueToken(cached);
    const sockets = new Set<import("node:net").Socket>();
    const silent: Server = createServer((socket) => sockets.add(socket)); // accepts, never answers
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const port = (silent.address() as { port: number }).port;
    const hung = await serverWith({ endpoint: `http://127.0.0.1:${port}/introspect` }, 500);
    try {
      const started = Date.now();
      const refused = [1, 2, 3].map(() => status(hung, token));
      expect(await status(hung, ADMIN)).toBe(200); // served while the introspection waits
      expect(await Promise.all(refused)).toEqual([401, 401, 401]);
      expect(Date.now() - started).toBeLessThan(3_000);
      expect(sockets.size).toBe(1); // concurrent requests with one token share one call
      expect(hung.logger.lines.join("\n")).toMatch(/introspection failed.*timeout/i);
    } finally {
      await hung.close();
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  }, 60_000);
});
