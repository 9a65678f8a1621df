/**
 * Discovery fails closed and never waits unboundedly: the RFC 8414 document first, then the
 * OpenID Connect one; a document for another issuer, one without jwks_uri, an error status or a
 * provider that does not answer in time is a failure naming every URL tried.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import {
  cachedJwksUri,
  discoverEndpoint,
  discoverJwksUri,
  metadataUrls,
} from "../../../src/auth/oauth/discovery.js";

let server: Server | null = null;
afterEach(async () => {
  const s = server;
  server = null;
  if (s === null) return;
  s.closeAllConnections();
  await new Promise((resolve) => s.close(resolve));
});

/** A provider answering `routes[path]` (a JSON body, or a status), hanging on "hang". */
async function provider(routes: (base: string) => Record<string, unknown>): Promise<string> {
  let base = "";
  server = createServer((req, res) => {
    const answer = routes(base)[req.url ?? ""];
    if (answer === "hang") return;
    if (typeof answer === "number") res.writeHead(answer).end();
    else if (answer === undefined) res.writeHead(404).end();
    else res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(answer));
  });
  await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return base;
}

describe("issuer discovery", () => {
  it("tries RFC 8414 (path after the well-known prefix), then OpenID Connect (path before)", () => {
    expect(metadataUrls("https://sso.example.com/realms/acme")).toEqual([
      "https://sso.example.com/.well-known/oauth-authorization-server/realms/acme",
      "https://sso.example.com/realms/acme/.well-known/openid-configuration",
    ]);
    expect(metadataUrls("https://tenant.auth0.example/")).toEqual([
      "https://tenant.auth0.example/.well-known/oauth-authorization-server",
      "https://tenant.auth0.example/.well-known/openid-configuration",
    ]);
  });

  it("falls back to the OpenID Connect document and checks its issuer", async () => {
    const base = await provider((b) => ({
      "/.well-known/oauth-authorization-server/r": 404,
      "/r/.well-known/openid-configuration": { issuer: `${b}/r`, jwks_uri: `${b}/r/jwks` },
    }));
    expect(await discoverJwksUri(`${base}/r`, 1000)).toBe(`${base}/r/jwks`);
  });

  it("refuses a document for another issuer or without jwks_uri, naming each URL", async () => {
    const base = await provider(() => ({
      "/.well-known/oauth-authorization-server": { issuer: "https://evil.example" },
      "/.well-known/openid-configuration": { issuer: "" },
    }));
    await expect(discoverJwksUri(base, 1000)).rejects.toThrow(
      /names issuer "https:\/\/evil.example", not http.*\n.*openid-configuration: names issuer ""/,
    );
  });

  it("finds the introspection endpoint, or names the key that replaces it", async () => {
    const base = await provider((b) => ({
      "/.well-known/oauth-authorization-server": {
        issuer: b,
        jwks_uri: `${b}/jwks`,
        introspection_endpoint: `${b}/introspect`,
      },
    }));
    expect(await discoverEndpoint(base, 1000, "introspection_endpoint")).toBe(`${base}/introspect`);
    const bare = `${base}/bare`;
    await expect(discoverEndpoint(bare, 1000, "introspection_endpoint")).rejects.toThrow(
      /HTTP 404/,
    );
  });

  it("says which key to set when the metadata has no introspection endpoint", async () => {
    const base = await provider((b) => ({
      "/.well-known/oauth-authorization-server": { issuer: b, jwks_uri: `${b}/jwks` },
      "/.well-known/openid-configuration": 404,
    }));
    await expect(discoverEndpoint(base, 1000, "introspection_endpoint")).rejects.toThrow(
      /has no introspection_endpoint \(set auth\.oauth\.introspection\.endpoint\)/,
    );
  });

  it("gives up on a provider that does not answer, and remembers the failure", async () => {
    const base = await provider(() => ({
      "/.well-known/oauth-authorization-server": "hang",
      "/.well-known/openid-configuration": "hang",
    }));
    const started = Date.now();
    let now = 0;
    const lookup = cachedJwksUri(base, 200, () => now);
    await expect(lookup()).rejects.toThrow(/discovery of .* failed .*\n.*(timeout|aborted)/is);
    expect(Date.now() - started).toBeLessThan(3000);
    now = 5_000; // within the retry delay: refused at once, nothing fetched
    const again = Date.now();
    await expect(lookup()).rejects.toThrow(/discovery of/);
    expect(Date.now() - again).toBeLessThan(100);
  });
});
