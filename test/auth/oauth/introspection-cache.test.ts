/**
 * The introspection cache: keyed by the token's SHA-256 (nothing it holds contains the token),
 * entries dropped at their expiry, and never more than its bound, the oldest going first.
 */
import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import { cacheKey, IntrospectionCache } from "../../../src/auth/oauth/introspection-cache.js";

const principal = Object.freeze({
  id: "oauth:sso.example.com:u-1",
  policy: Object.freeze({ admin: false, rules: Object.freeze([]) }),
});
const answer = (expiresAt: number) => ({ principal, audiences: ["https://kb/mcp"], expiresAt });

describe("introspection cache", () => {
  it("keys by the token's SHA-256 and holds nothing of the token", () => {
    const token = "opaque-token-value-7f3a9c";
    const cache = new IntrospectionCache(10);
    const key = cacheKey(token);
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(key).toBe(cacheKey(token));
    expect(key).not.toBe(cacheKey(`${token}x`));
    cache.set(key, answer(2_000));
    expect(cache.get(key, 1_000)?.principal.id).toBe(principal.id);
    const held = inspect(cache, { depth: 10, showHidden: true });
    expect(held).toContain(key); // what it holds is visible here…
    expect(held).not.toContain(token); // …and the token is not among it
  });

  it("drops an entry at its expiry", () => {
    const cache = new IntrospectionCache(10);
    cache.set("k", answer(2_000));
    expect(cache.get("k", 1_999)).toBeDefined();
    expect(cache.get("k", 2_000)).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it("holds at most its bound, dropping the oldest first", () => {
    const cache = new IntrospectionCache(3);
    for (const key of ["a", "b", "c", "d"]) cache.set(key, answer(10_000));
    expect(cache.size).toBe(3);
    expect(cache.get("a", 0)).toBeUndefined();
    expect(cache.get("d", 0)).toBeDefined();
  });
});
