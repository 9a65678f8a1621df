/**
 * The console through real HTTP requests on 127.0.0.1 against a real KB: security headers on
 * every reply, sign-in/out, expired and unknown sessions, CSRF and Origin on POSTs, auth off.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CONSOLE_CSP } from "../../src/console/headers.js";
import {
  ADMIN_TOKEN,
  type ConsoleServer,
  consoleServer,
  hiddenField,
  signIn,
} from "../support/console-kb.js";

let s: ConsoleServer;
beforeAll(async () => {
  s = await consoleServer();
});
afterAll(async () => {
  await s.close();
});

function expectSecurityHeaders(h: Record<string, string | string[] | undefined>) {
  expect(h["content-security-policy"]).toBe(CONSOLE_CSP);
  expect(h["x-content-type-options"]).toBe("nosniff");
  expect(h["referrer-policy"]).toBe("no-referrer");
}

describe("console over HTTP, auth on", () => {
  it("without a session, a page redirects to sign-in (303) and carries the security headers", async () => {
    const r = await s.get("/console/kb?x=1");
    expect(r.status).toBe(303);
    expect(r.headers.location).toBe(
      `/console/signin?next=${encodeURIComponent("/console/kb?x=1")}`,
    );
    expectSecurityHeaders(r.headers);
  });

  it("signing in with a good token sets an HttpOnly SameSite=Strict cookie; the home page lists the KB", async () => {
    const form = await s.get("/console/signin");
    expect(form.status).toBe(200);
    expectSecurityHeaders(form.headers);
    const r = await s.post("/console/signin", {
      _csrf: hiddenField(form.body, "_csrf"),
      token: ADMIN_TOKEN,
      next: "/",
    });
    expect(r.status).toBe(303);
    const set = String(r.headers["set-cookie"]);
    expect(set).toMatch(/HttpOnly/);
    expect(set).toMatch(/SameSite=Strict/);
    expect(set).not.toContain(ADMIN_TOKEN);
    const cookie = set.split(";")[0] as string;
    const home = await s.get("/", { Cookie: cookie });
    expect(home.status).toBe(200);
    expect(home.headers["cache-control"]).toBe("no-store");
    expect(home.body).toContain('href="/console/kb"');
    expect(home.body).not.toContain(ADMIN_TOKEN);
  });

  it("a wrong token answers 401 with a clear message and sets no cookie", async () => {
    const form = await s.get("/console/signin");
    const r = await s.post("/console/signin", {
      _csrf: hiddenField(form.body, "_csrf"),
      token: "not-a-token",
    });
    expect(r.status).toBe(401);
    expect(r.headers["set-cookie"]).toBeUndefined();
    expect(r.body).toContain("That token was not accepted");
    expect(r.body).not.toContain("not-a-token");
  });

  it("sign-in without the CSRF field or from another Origin is refused (403)", async () => {
    const form = await s.get("/console/signin");
    const csrf = hiddenField(form.body, "_csrf");
    expect((await s.post("/console/signin", { token: ADMIN_TOKEN })).status).toBe(403);
    const cross = await s.post(
      "/console/signin",
      { _csrf: csrf, token: ADMIN_TOKEN },
      { Origin: "http://localhost:1" },
    );
    expect(cross.status).toBe(403);
  });

  it("sign-out ends the session: the cookie no longer opens a page", async () => {
    const cookie = await signIn(s, ADMIN_TOKEN);
    const home = await s.get("/", { Cookie: cookie });
    const csrf = hiddenField(home.body, "_csrf");
    const out = await s.post("/console/signout", { _csrf: csrf }, { Cookie: cookie });
    expect(out.status).toBe(303);
    expect(String(out.headers["set-cookie"])).toMatch(/Max-Age=0/);
    const after = await s.get("/", { Cookie: cookie });
    expect(after.status).toBe(303);
  });

  it("static files are served with their type and the security headers", async () => {
    const css = await s.get("/console/static/console.css");
    expect(css.status).toBe(200);
    expect(css.headers["content-type"]).toMatch(/^text\/css/);
    expectSecurityHeaders(css.headers);
    expect((await s.get("/console/static/..%2Fserver.js")).status).toBe(404);
    expect((await s.get("/console/static/nope.js")).status).toBe(404);
  });
});

describe("console over HTTP, auth off", () => {
  it("serves the home page to a loopback client without sign-in", async () => {
    const off = await consoleServer({ authOff: true });
    try {
      const r = await off.get("/");
      expect(r.status).toBe(200);
      expect(r.body).toContain('href="/console/kb"');
      expect((await off.get("/console/signin")).status).toBe(303);
    } finally {
      await off.close();
    }
  });
});
