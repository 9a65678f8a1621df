/**
 * POST forms through the console dispatcher (request values, no socket): a page's POST runs only
 * with the viewer's CSRF token, the console's own Origin and a urlencoded body under the cap.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ConsoleInput } from "../../src/console/input.js";
import type { ConsolePage } from "../../src/console/router.js";
import { type ConsoleServer, createConsole } from "../../src/console/server.js";
import { silentLogger } from "../../src/logger.js";
import { type Cartographer, createCartographer } from "../../src/mcp/app.js";
import { type TempMounts, tempMounts } from "../support/mcp-kit.js";

const ORIGIN = "http://127.0.0.1:4000";
let kbs: TempMounts;
let app: Cartographer;
let console_: ConsoleServer;
const runs: string[] = [];

const formPage: ConsolePage = {
  pattern: "/console/:kb/form",
  methods: ["GET", "POST"],
  handle(req) {
    if (req.method === "POST") {
      runs.push(req.form?.get("value") ?? "");
      return { redirect: "/console/a/form" };
    }
    return { status: 200, text: req.viewer.csrf };
  },
};

function input(method: string, body = "", headers: Record<string, string> = {}): ConsoleInput {
  const h: Record<string, string> = { origin: ORIGIN, ...headers };
  return {
    method,
    pathname: "/console/a/form",
    query: new URLSearchParams(),
    header: (name) => h[name],
    readBody: async (max) =>
      Buffer.byteLength(body) > max
        ? { ok: false, reason: "too_large" }
        : { ok: true, bytes: Buffer.from(body) },
    origin: ORIGIN,
    secure: false,
    audiences: [],
    peerLoopback: true,
  };
}

beforeAll(async () => {
  kbs = await tempMounts(["a"]);
  app = await createCartographer({ mounts: kbs.mounts, logger: silentLogger });
  console_ = createConsole({ app, auth: null, pages: [formPage] });
});
afterAll(async () => {
  await app.close();
  await kbs.cleanup();
});

describe("console POST forms", () => {
  const form = "application/x-www-form-urlencoded";

  it("runs the page with the CSRF token and the console's Origin", async () => {
    const csrf = String((await console_.handle(input("GET")))?.body);
    const r = await console_.handle(
      input("POST", `_csrf=${encodeURIComponent(csrf)}&value=ok`, { "content-type": form }),
    );
    expect(r?.status).toBe(303);
    expect(runs).toEqual(["ok"]);
  });

  it("refuses, without running the page, a missing or wrong token, another Origin or none", async () => {
    const csrf = String((await console_.handle(input("GET")))?.body);
    const before = runs.length;
    const cases: [string, Record<string, string>][] = [
      ["value=x", { "content-type": form }],
      [`_csrf=${csrf}x&value=x`, { "content-type": form }],
      [
        `_csrf=${encodeURIComponent(csrf)}&value=x`,
        { "content-type": form, origin: "http://evil.example" },
      ],
      [`_csrf=${encodeURIComponent(csrf)}&value=x`, { "content-type": form, origin: "null" }],
    ];
    for (const [body, headers] of cases)
      expect((await console_.handle(input("POST", body, headers)))?.status, body).toBe(403);
    const noOrigin = input("POST", `_csrf=${encodeURIComponent(csrf)}`, { "content-type": form });
    const withoutOrigin = {
      ...noOrigin,
      header: (n: string) => (n === "content-type" ? form : undefined),
    };
    expect((await console_.handle(withoutOrigin))?.status).toBe(403);
    expect(runs.length).toBe(before);
  });

  it("a body that is not urlencoded is 415, one over 64 KiB is 413", async () => {
    const csrf = String((await console_.handle(input("GET")))?.body);
    const json = await console_.handle(
      input("POST", JSON.stringify({ _csrf: csrf }), { "content-type": "application/json" }),
    );
    expect(json?.status).toBe(415);
    const big = await console_.handle(
      input("POST", `_csrf=${csrf}&value=${"x".repeat(70_000)}`, { "content-type": form }),
    );
    expect(big?.status).toBe(413);
  });
});
