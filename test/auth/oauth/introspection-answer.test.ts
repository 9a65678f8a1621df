/**
 * The RFC 7662 answer rules, pure: only `active: true` admits; a present `iss`, `token_type`,
 * `exp`, `nbf` or `aud` that does not fit refuses (clock skew applied as on the JWT path);
 * the optional claims may be absent.
 */
import { describe, expect, it } from "vitest";
import {
  audienceAccepted,
  checkIntrospectionAnswer,
} from "../../../src/auth/oauth/introspection-answer.js";

const ISSUER = "https://sso.example.com/realms/acme";
const NOW = 1_800_000_000;
const rules = { issuer: ISSUER, clockSkewSeconds: 60, nowSeconds: NOW };
const active = { active: true, sub: "u-1", iss: ISSUER, exp: NOW + 300, aud: "https://kb/mcp" };

const reasonOf = (body: unknown) => {
  const checked = checkIntrospectionAnswer(body, rules);
  return checked.ok ? "ok" : checked.reason;
};

describe("introspection answers", () => {
  it("admits an active answer, returning its claims, aud list and exp", () => {
    expect(checkIntrospectionAnswer(active, rules)).toEqual({
      ok: true,
      claims: active,
      audiences: ["https://kb/mcp"],
      exp: NOW + 300,
    });
    expect(checkIntrospectionAnswer({ active: true, sub: "u-1" }, rules)).toMatchObject({
      ok: true,
      audiences: null,
      exp: null,
    });
  });

  it("refuses what is not active, or not an object", () => {
    for (const body of [{ active: false }, { active: "true" }, { sub: "u-1" }])
      expect(reasonOf(body)).toMatch(/not active/);
    for (const body of [null, [], "active", 1]) expect(reasonOf(body)).toMatch(/not a JSON object/);
  });

  it("refuses another issuer, a refresh token, and malformed claims", () => {
    expect(reasonOf({ ...active, iss: "https://evil.example" })).toMatch(/names issuer/);
    expect(reasonOf({ ...active, token_type: "refresh_token" })).toMatch(/refresh token/);
    expect(reasonOf({ ...active, token_type: "Bearer" })).toBe("ok");
    expect(reasonOf({ ...active, exp: "tomorrow" })).toMatch(/not a number/);
    expect(reasonOf({ ...active, aud: [1] })).toMatch(/aud is neither/);
  });

  it("applies exp and nbf with the clock skew", () => {
    expect(reasonOf({ ...active, exp: NOW - 59 })).toBe("ok");
    expect(reasonOf({ ...active, exp: NOW - 60 })).toMatch(/"exp" claim timestamp check failed/);
    expect(reasonOf({ ...active, nbf: NOW + 60 })).toBe("ok");
    expect(reasonOf({ ...active, nbf: NOW + 61 })).toMatch(/"nbf" claim timestamp check failed/);
  });

  it("accepts an audience list naming one of the accepted, or no aud at all", () => {
    expect(audienceAccepted(["a", "b"], ["b"])).toBe(true);
    expect(audienceAccepted(["a"], ["b", "c"])).toBe(false);
    expect(audienceAccepted([], ["b"])).toBe(false);
    expect(audienceAccepted(null, ["b"])).toBe(true);
  });
});
