/**
 * The console through real HTTP requests on 127.0.0.1 against a real KB: security headers on
 * every reply, sign-in/out, expired and unknown sessions, CSRF and Origin on POSTs, auth off.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CONSOLE_CSP } from "../../src/console/headers.js";
import { createHttpCore } from "../../src/http/core.js";
import { requestOf } from "../../src/http/exchange.js";
import { raw } from "../http/helpers.js";
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
  expect(h["referrer-policy"]).toBe("same-origin");
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

describe("console sessions and methods", () => {
  it("an idle session expires: the cookie then redirects to sign-in", async () => {
    const short = await consoleServer({ sessions: { idleMs: 150 } });
    try {
      const cookie = await signIn(short, ADMIN_TOKEN);
      expect((await short.get("/", { Cookie: cookie })).status).toBe(200);
      await new Promise((r) => setTimeout(r, 300));
      const after = await short.get("/", { Cookie: cookie });
      expect(after.status).toBe(303);
      expect(after.headers.location).toMatch(/^\/console\/signin/);
    } finally {
      await short.close();
    }
  });

  it("HEAD answers a page's headers; POST to a GET page is 405; an unknown page is 404", async () => {
    const cookie = await signIn(s, ADMIN_TOKEN);
    const head = await s.get("/", { Cookie: cookie });
    expect(head.status).toBe(200);
    const headOnly = await raw(s.port, { method: "HEAD", path: "/", headers: { Cookie: cookie } });
    expect(headOnly.status).toBe(200);
    expect(headOnly.body).toBe("");
    const home = await s.get("/", { Cookie: cookie });
    const post = await s.post("/", { _csrf: hiddenField(home.body, "_csrf") }, { Cookie: cookie });
    expect(post.status).toBe(405);
    expectSecurityHeaders(post.headers);
    const unknown = await s.get("/console/kb/nowhere/at/all", { Cookie: cookie });
    expect(unknown.status).toBe(404);
    expectSecurityHeaders(unknown.headers);
  });

  it("a sign-in next= pointing off the server is ignored", async () => {
    const form = await s.get("/console/signin");
    for (const next of ["//evil.example/", "https://evil.example/", "/\\evil.example"]) {
      const r = await s.post("/console/signin", {
        _csrf: hiddenField(form.body, "_csrf"),
        token: ADMIN_TOKEN,
        next,
      });
      expect(r.status).toBe(303);
      expect(r.headers.location).toBe("/");
    }
  });

  it("/mcp, /health and unknown paths answer as before (the console takes only its paths)", async () => {
    expect((await s.get("/health")).headers["content-security-policy"]).toBeUndefined();
    const unknown = await s.get("/nothing");
    expect(unknown.status).toBe(404);
    expect(unknown.headers["content-type"]).toBe("application/json");
  });
});

describe("auth off, through the core", () => {
  it("a request from a peer that is not loopback is refused (403)", async () => {
    const off = await consoleServer({ authOff: true });
    try {
      const core = createHttpCore({ app: off.app, version: "1" });
      const fromAfar = await core.handle({
        ...requestOf("GET", "/", { Host: "127.0.0.1" }),
        remoteAddress: "192.0.2.7",
      });
      expect(fromAfar?.status).toBe(403);
      expect(fromAfar?.headers["Content-Security-Policy"]).toBe(CONSOLE_CSP);
      const local = await core.handle({
        ...requestOf("GET", "/", { Host: "127.0.0.1" }),
        remoteAddress: "::ffff:127.0.0.1",
      });
      expect(local?.status).toBe(200);
    } finally {
      await off.close();
    }
  });
});
