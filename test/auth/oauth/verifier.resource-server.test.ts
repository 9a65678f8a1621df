/**
 * Cartographer as an OAuth 2.1 resource server against a real OpenID provider (oidc-provider on
 * 127.0.0.1): the MCP SDK client's own authorization-code + PKCE flow with the resource
 * indicator, the refusals (expired, another audience, another issuer, unknown key, no role),
 * key rotation at the provider, a role meaning the same for a static and an OAuth token, and
 * what a static-token-only server tells a client.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { generateKeyPair, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postInit, raw } from "../../http/helpers.js";
import { textOf } from "../../support/mcp-kit.js";
import { ADMIN, oauthSettings, ROLE_TOKEN, startOAuthServer, TestOAuthClient } from "./fixture.js";
import { MCP_SCOPE, startIdp, type TestIdp } from "./idp.js";

let idp: TestIdp;
let otherIdp: TestIdp;
let cart: Awaited<ReturnType<typeof startOAuthServer>>;
let resource: string;

beforeAll(async () => {
  idp = await startIdp();
  otherIdp = await startIdp();
  cart = await startOAuthServer(oauthSettings(idp.issuer));
  resource = `${cart.server.url}/mcp`;
}, 60_000);
afterAll(async () => {
  await cart?.close();
  await idp?.close();
  await otherIdp?.close();
});

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

async function sdkClient(path: string, provider: TestOAuthClient): Promise<Client> {
  const url = new URL(`${cart.server.url}${path}`);
  const client = new Client({ name: "oauth-test", version: "1" });
  await client.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }));
  return client;
}

/** The SDK's whole flow: 401 → metadata → authorize (followed in code) → token → connected. */
async function signIn(path: string): Promise<{ client: Client; provider: TestOAuthClient }> {
  const provider = new TestOAuthClient();
  const url = new URL(`${cart.server.url}${path}`);
  const first = new StreamableHTTPClientTransport(url, { authProvider: provider });
  await expect(new Client({ name: "oauth-test", version: "1" }).connect(first)).rejects.toThrow(
    /Unauthorized/,
  );
  const authorization = provider.pending as URL;
  expect(authorization.searchParams.get("resource")).toBe(resource);
  expect(authorization.searchParams.get("scope")).toBe(MCP_SCOPE);
  expect(authorization.searchParams.get("code_challenge_method")).toBe("S256");
  await first.finishAuth(await idp.authorize(authorization));
  return { client: await sdkClient(path, provider), provider };
}

async function conceptList(client: Client): Promise<string> {
  return textOf(await client.callTool({ name: "concept_list", arguments: { kb: "main" } }));
}

describe("OAuth resource server", () => {
  it("the SDK client signs in (code + PKCE + resource), lists and calls tools, audited as oauth:<host>:<sub>", async () => {
    idp.loginAs = "alice";
    const { client, provider } = await signIn("/mcp/routed");
    expect(provider.saved?.access_token).toBeTruthy();
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    const read = await client.callTool({
      name: "concept_read",
      arguments: { kb: "main", id: "alpha/in-note" },
    });
    expect(read.isError).toBeFalsy();
    await client.close();
    const host = new URL(idp.issuer).host;
    const ids = cart.audit.records.map((r) => r.principal_id);
    expect(ids).toContain(`oauth:${host}:alice`);
    const logged = [...cart.logger.lines, JSON.stringify(cart.audit.records)].join("\n");
    expect(logged).not.toContain(provider.saved?.access_token as string);
  }, 60_000);

  it("a narrow role sees exactly what a static token with the same role sees", async () => {
    idp.loginAs = "alice";
    const { client } = await signIn("/mcp/routed");
    const viaOAuth = await conceptList(client);
    await client.close();
    const staticClient = new Client({ name: "static", version: "1" });
    await staticClient.connect(
      new StreamableHTTPClientTransport(new URL(`${cart.server.url}/mcp/routed`), {
        requestInit: { headers: bearer(ROLE_TOKEN) },
      }),
    );
    const viaStatic = await conceptList(staticClient);
    await staticClient.close();
    expect(viaOAuth).toBe(viaStatic);
    expect(viaOAuth).toContain("alpha/in-note");
    expect(viaOAuth).not.toContain("beta/out-note");
  }, 60_000);

  it("a client_credentials token of a client holding the role works on a per-KB endpoint", async () => {
    const token = await idp.clientToken("svc-role", resource);
    expect((await postInit(cart.server.port, "/mcp/main", bearer(token))).status).toBe(200);
  });

  it("refuses an expired token, another audience, another issuer and an unknown key with 401", async () => {
    const now = Math.floor(Date.now() / 1000);
    const expired = await idp.mint({
      iss: idp.issuer,
      aud: resource,
      sub: "alice",
      groups: ["alpha-notes"],
      iat: now - 600,
      exp: now - 120,
    });
    const otherAudience = await idp.clientToken("svc-role", "http://other.example/mcp");
    const otherIssuer = await otherIdp.clientToken("svc-role", resource);
    const { privateKey } = await generateKeyPair("RS256");
    const stranger = await new SignJWT({ sub: "alice", groups: ["alpha-notes"] })
      .setProtectedHeader({ alg: "RS256", typ: "at+jwt", kid: "not-the-providers" })
      .setIssuer(idp.issuer)
      .setAudience(resource)
      .setExpirationTime("5m")
      .sign(privateKey);
    for (const token of [expired, otherAudience, otherIssuer, stranger]) {
      const r = await postInit(cart.server.port, "/mcp/main", bearer(token));
      expect(r.status).toBe(401);
      expect(r.headers["www-authenticate"]).toBe(
        `Bearer scope="${MCP_SCOPE}", resource_metadata="${cart.server.url}/.well-known/oauth-protected-resource"`,
      );
    }
    expect(cart.logger.lines.join("\n")).toMatch(/access token refused: .*"exp"/);
  });

  it("accepts typ at+jwt and JWT; refuses another typ, none, and a token without exp", async () => {
    const now = Math.floor(Date.now() / 1000);
    const claims = { iss: idp.issuer, aud: resource, sub: "carol", groups: ["alpha-notes"] };
    const timed = { ...claims, iat: now, exp: now + 300 };
    const status = async (token: string) =>
      (await postInit(cart.server.port, "/mcp/main", bearer(token))).status;
    expect(await status(await idp.mint(timed, "at+jwt"))).toBe(200);
    expect(await status(await idp.mint(timed, "JWT"))).toBe(200);
    expect(await status(await idp.mint(timed, "id_token+jwt"))).toBe(401);
    expect(await status(await idp.mint(timed, null))).toBe(401);
    expect(await status(await idp.mint(claims))).toBe(401);
  });

  it("a token without the role gets 403 insufficient_scope", async () => {
    const token = await idp.clientToken("svc-none", resource);
    const r = await postInit(cart.server.port, "/mcp/main", bearer(token));
    expect(r.status).toBe(403);
    expect(r.headers["www-authenticate"]).toBe(
      `Bearer error="insufficient_scope", scope="${MCP_SCOPE}", resource_metadata="${cart.server.url}/.well-known/oauth-protected-resource"`,
    );
  });

  it("static tokens keep working beside OAuth; the metadata names the provider", async () => {
    expect((await postInit(cart.server.port, "/mcp/main", bearer(ADMIN))).status).toBe(200);
    const meta = await raw(cart.server.port, {
      method: "GET",
      path: "/.well-known/oauth-protected-resource",
    });
    expect(meta.json()).toEqual({
      resource,
      bearer_methods_supported: ["header"],
      scopes_supported: [MCP_SCOPE],
      authorization_servers: [idp.issuer],
    });
  });

  it("picks up a key rotation at the provider; tokens of the retired key are refused", async () => {
    const before = await idp.clientToken("svc-role", resource);
    expect((await postInit(cart.server.port, "/mcp/main", bearer(before))).status).toBe(200);
    await idp.rotate();
    const after = await idp.clientToken("svc-role", resource);
    expect((await postInit(cart.server.port, "/mcp/main", bearer(after))).status).toBe(200);
    expect((await postInit(cart.server.port, "/mcp/main", bearer(before))).status).toBe(401);
  });
});

describe("fail closed", () => {
  it("an unreachable issuer refuses its tokens (static tokens still work)", async () => {
    const gone = await startIdp();
    const token = await gone.clientToken("svc-role", "http://127.0.0.1:1/mcp");
    await gone.close();
    const down = await startOAuthServer(
      oauthSettings(gone.issuer, { audience: "http://127.0.0.1:1/mcp" }),
    );
    try {
      expect((await postInit(down.server.port, "/mcp/main", bearer(token))).status).toBe(401);
      expect(down.logger.lines.join("\n")).toMatch(/discovery of .* failed/);
      expect((await postInit(down.server.port, "/mcp/main", bearer(ADMIN))).status).toBe(200);
    } finally {
      await down.close();
    }
  }, 30_000);
});

describe("static tokens only", () => {
  it("sends a bare Bearer challenge and serves no protected-resource metadata", async () => {
    const plain = await startOAuthServer(null);
    try {
      const r = await postInit(plain.server.port, "/mcp/main");
      expect(r.status).toBe(401);
      expect(r.headers["www-authenticate"]).toBe("Bearer");
      for (const path of [
        "/.well-known/oauth-protected-resource",
        "/.well-known/oauth-protected-resource/mcp/main",
      ]) {
        expect((await raw(plain.server.port, { method: "GET", path })).status).toBe(404);
      }
    } finally {
      await plain.close();
    }
  }, 30_000);
});
