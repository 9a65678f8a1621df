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
    expect(wwwAuthenticate("https://h.example/.well-known/oauth-protected-resource/mcp/docs")).toBe(
      'Bearer resource_metadata="https://h.example/.well-known/oauth-protected-resource/mcp/docs"',
    );
    expect(wwwAuthenticate('http://x/"q"')).toBe('Bearer resource_metadata="http://x/\\"q\\""');
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
