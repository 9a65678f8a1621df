/** The bearer header and the RFC 9728 challenge/metadata. */
import { describe, expect, it } from "vitest";
import { parseBearer, protectedResourceMetadata, wwwAuthenticate } from "../../src/auth/bearer.js";

describe("parseBearer", () => {
  it("takes the token of a Bearer header, any scheme case, trimmed", () => {
    expect(parseBearer("Bearer abc.def")).toBe("abc.def");
    expect(parseBearer("bearer abc")).toBe("abc");
    expect(parseBearer("  BEARER \t abc  ")).toBe("abc");
  });

  it("is null for missing, empty, other-scheme or malformed headers", () => {
    for (const header of [
      undefined,
      "",
      "Bearer",
      "Bearer   ",
      "Basic dXNlcjpw",
      "Bearerabc",
      "Bearer a b",
      "Token abc",
    ]) {
      expect(parseBearer(header)).toBeNull();
    }
  });
});

describe("RFC 9728", () => {
  it("challenges with the resource metadata URL", () => {
    expect(
      wwwAuthenticate({
        resourceMetadata: "https://h.example/.well-known/oauth-protected-resource/mcp/docs",
      }),
    ).toBe(
      'Bearer resource_metadata="https://h.example/.well-known/oauth-protected-resource/mcp/docs"',
    );
    expect(wwwAuthenticate({ resourceMetadata: 'http://x/"q"' })).toBe(
      'Bearer resource_metadata="http://x/\\"q\\""',
    );
  });

  it("is bare Bearer without an authorization server; insufficient_scope names the scopes", () => {
    expect(wwwAuthenticate()).toBe("Bearer");
    expect(
      wwwAuthenticate({
        error: "insufficient_scope",
        scope: ["kb:a:r", "kb:b:r"],
        resourceMetadata: "u",
      }),
    ).toBe('Bearer error="insufficient_scope", scope="kb:a:r kb:b:r", resource_metadata="u"');
  });

  it("describes the protected resource; authorization_servers only when configured", () => {
    expect(
      protectedResourceMetadata({
        resource: "https://h/mcp",
        scopesSupported: ["kb:a:r", "kb:a:rw"],
      }),
    ).toEqual({
      resource: "https://h/mcp",
      bearer_methods_supported: ["header"],
      scopes_supported: ["kb:a:r", "kb:a:rw"],
    });
    expect(
      protectedResourceMetadata({
        resource: "r",
        scopesSupported: [],
        authorizationServers: ["https://issuer"],
      }).authorization_servers,
    ).toEqual(["https://issuer"]);
  });
});
