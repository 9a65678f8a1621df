import { describe, expect, it } from "vitest";
import { cookieOf, SessionStore, sessionCookie } from "../../src/console/session.js";

describe("SessionStore", () => {
  it("a session lives until idle or absolute expiry, whichever comes first", () => {
    let now = 0;
    const store = new SessionStore({ idleMs: 100, absoluteMs: 250, now: () => now });
    const { cookie } = store.create("tok");
    now = 90;
    expect(store.get(cookie)?.bearer).toBe("tok");
    now = 180; // 90 idle since the last get
    expect(store.get(cookie)).not.toBeNull();
    now = 249;
    expect(store.get(cookie)).not.toBeNull();
    now = 250; // absolute
    expect(store.get(cookie)).toBeNull();
    const idle = store.create("tok2").cookie;
    now = 350;
    expect(store.get(idle)).toBeNull();
  });

  it("the cookie is 32 random bytes and the store keys by its hash, never the value", () => {
    const store = new SessionStore();
    const { cookie, session } = store.create("tok");
    expect(Buffer.from(cookie, "base64url")).toHaveLength(32);
    expect(session.key).toMatch(/^[0-9a-f]{64}$/);
    expect(session.key).not.toContain(cookie);
    expect(store.get(`${cookie}x`)).toBeNull();
  });

  it("is bounded: past the cap the least recently used session goes", () => {
    let now = 0;
    const store = new SessionStore({ maxSessions: 2, now: () => now });
    const a = store.create("a").cookie;
    const b = store.create("b").cookie;
    now = 1;
    store.get(a); // a is now more recent than b
    const c = store.create("c").cookie;
    expect(store.size).toBe(2);
    expect(store.get(b)).toBeNull();
    expect(store.get(a)?.bearer).toBe("a");
    expect(store.get(c)?.bearer).toBe("c");
  });

  it("delete ends a session", () => {
    const store = new SessionStore();
    const { cookie } = store.create("tok");
    store.delete(cookie);
    expect(store.get(cookie)).toBeNull();
  });
});

describe("cookies", () => {
  it("Set-Cookie is HttpOnly, SameSite=Strict, Path=/; Secure only over https; sign-out clears", () => {
    expect(sessionCookie("v", false)).toBe("carto_session=v; Path=/; HttpOnly; SameSite=Strict");
    expect(sessionCookie("v", true)).toBe(
      "carto_session=v; Path=/; HttpOnly; SameSite=Strict; Secure",
    );
    expect(sessionCookie(null, false)).toMatch(/^carto_session=; .*Max-Age=0$/);
  });

  it("cookieOf finds one cookie among several", () => {
    expect(cookieOf("a=1; carto_session=xyz; b=2", "carto_session")).toBe("xyz");
    expect(cookieOf("carto_sessionx=1", "carto_session")).toBeUndefined();
    expect(cookieOf(undefined, "carto_session")).toBeUndefined();
  });
});
