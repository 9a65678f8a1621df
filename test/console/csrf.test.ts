import { describe, expect, it } from "vitest";
import { CsrfTokens, csrfMatches, sameOrigin } from "../../src/console/csrf.js";

describe("CSRF tokens", () => {
  it("are bound to the session and to this process's secret", () => {
    const a = new CsrfTokens(Buffer.alloc(32, 1));
    const b = new CsrfTokens(Buffer.alloc(32, 2));
    expect(a.tokenFor("s1")).toBe(a.tokenFor("s1"));
    expect(a.tokenFor("s1")).not.toBe(a.tokenFor("s2"));
    expect(a.tokenFor("s1")).not.toBe(b.tokenFor("s1"));
    expect(a.tokenFor(null)).not.toBe(a.tokenFor("s1"));
  });

  it("a form matches only with the exact token", () => {
    const t = new CsrfTokens().tokenFor("s");
    expect(csrfMatches(new URLSearchParams({ _csrf: t }), t)).toBe(true);
    expect(csrfMatches(new URLSearchParams({ _csrf: `${t}x` }), t)).toBe(false);
    expect(csrfMatches(new URLSearchParams({ _csrf: "" }), t)).toBe(false);
    expect(csrfMatches(new URLSearchParams(), t)).toBe(false);
    expect(csrfMatches(null, t)).toBe(false);
  });
});

describe("sameOrigin", () => {
  it("requires an Origin equal to the console's scheme, host and port", () => {
    expect(sameOrigin("http://127.0.0.1:8080", "http://127.0.0.1:8080")).toBe(true);
    expect(sameOrigin("http://127.0.0.1:8081", "http://127.0.0.1:8080")).toBe(false);
    expect(sameOrigin("https://127.0.0.1:8080", "http://127.0.0.1:8080")).toBe(false);
    expect(sameOrigin("http://evil.example", "http://127.0.0.1:8080")).toBe(false);
    expect(sameOrigin(undefined, "http://127.0.0.1:8080")).toBe(false);
    expect(sameOrigin("null", "http://127.0.0.1:8080")).toBe(false);
    expect(sameOrigin("not a url", "http://127.0.0.1:8080")).toBe(false);
  });
});
