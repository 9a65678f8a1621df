/**
 * The console dispatcher (docs/console.md): request value in (input.ts), reply value out. Order:
 *   method (405) → path decodes (404) → static files → auth off: loopback peers only (403) →
 *   sign-in / sign-out → the viewer (no session: GET → 303 to sign-in, POST → 401) → the page
 *   table (404, 405) → POST: urlencoded body under a cap (415, 413), same Origin and the CSRF
 *   token (403) → the page → a ConsoleError becomes an error page (not_found: 404, the same for
 *   hidden and missing). Every reply carries the security headers (headers.ts).
 */
import type { BearerPaths } from "../auth/oauth/bearer-principal.js";
import { FORM_URLENCODED } from "../common/media-types.js";
import type { Cartographer } from "../mcp/app.js";
import { CsrfTokens, checkCsrf, csrfMatches, sameOrigin } from "./csrf.js";
import { securityHeaders } from "./headers.js";
import type { ConsoleInput, ConsoleOutput } from "./input.js";
import { ConsoleKbs, type ConsoleKbsOptions } from "./kbs.js";
import { ConsoleError } from "./outcome.js";
import { errorBody, layout } from "./page.js";
import { PAGES } from "./pages/index.js";
import { RenderWarmer, type WarmOptions } from "./render/warm.js";
import { type ConsolePage, findPage, segmentsOf } from "./router.js";
import {
  cookieOf,
  SESSION_COOKIE,
  type SessionOptions,
  SessionStore,
  sessionCookie,
} from "./session.js";
import { localTarget, signedOutPage, signIn, signinPage } from "./signin.js";
import { staticFile } from "./static.js";
import type { ConsoleMethod, ConsoleReply, ConsoleRequest, Viewer } from "./types.js";
import { ANONYMOUS, authenticate, viewerOf } from "./viewer.js";

/** Largest POST body a console form may send. */
export const MAX_FORM_BYTES = 64 * 1024;

export interface ConsoleOptions extends ConsoleKbsOptions {
  app: Cartographer;
  /** How bearers authenticate; null = auth off (every loopback request is the local admin). */
  auth: BearerPaths | null;
  sessions?: SessionOptions;
  /** The page table (default PAGES; tests pass their own). */
  pages?: readonly ConsolePage[];
  /** Rendering large concepts ahead of their first view (render/warm.ts); false: not at all. */
  warm?: WarmOptions | false;
}

export interface ConsoleServer {
  handle(input: ConsoleInput): Promise<ConsoleOutput | null>;
  readonly kbs: ConsoleKbs;
  readonly sessions: SessionStore;
  /** Renders large concepts ahead of their first view; null when `warm: false`. */
  readonly warmer: RenderWarmer | null;
}

/** True when `pathname` is the console's (`/`, `/console`, `/console/…`). */
export function isConsolePath(pathname: string): boolean {
  return pathname === "/" || pathname === "/console" || pathname.startsWith("/console/");
}

export function createConsole(opts: ConsoleOptions): ConsoleServer {
  const kbs = new ConsoleKbs(opts.app, opts);
  const sessions = new SessionStore({ ...opts.sessions, ...(opts.now ? { now: opts.now } : {}) });
  const csrf = new CsrfTokens();
  const auth = opts.auth;
  const pages = opts.pages ?? PAGES;
  const anonymous = () => viewerOf(ANONYMOUS, null, false, kbs, csrf);
  const warmer =
    opts.warm === false ? null : new RenderWarmer({ logger: opts.app.logger, ...opts.warm });
  for (const [name, surface] of opts.app.surfaces) warmer?.watch(name, surface.runtime);

  async function handle(input: ConsoleInput): Promise<ConsoleOutput | null> {
    const method = input.method;
    if (method !== "GET" && method !== "HEAD" && method !== "POST")
      return output({ status: 405, text: `method ${method} not allowed` }, { Allow: "GET, POST" });
    const segments = segmentsOf(input.pathname);
    if (segments === null) return output({ status: 404, text: "not found" });
    if (segments[0] === "console" && segments[1] === "static" && segments.length === 3) {
      const file = staticFile(segments[2] as string);
      if (file === null || method === "POST") return output({ status: 404, text: "not found" });
      return output({ status: 200, bytes: file.bytes, contentType: file.contentType, maxAge: 300 });
    }
    if (auth === null && !input.peerLoopback)
      return output({
        status: 403,
        text: "forbidden: with auth off the console answers loopback clients only; configure tokens",
      });
    const path = `/${segments.join("/")}`;
    if (path === "/console/signin") return signinRoute(input, method);
    if (path === "/console/signout") return signoutRoute(input, method);
    const who = await authenticate(auth, sessions, input.header("cookie"), input.audiences);
    if (who === null) {
      if (method === "POST") return output({ status: 401, html: signedOutPage(anonymous()) });
      const next = input.query.size > 0 ? `${input.pathname}?${input.query}` : input.pathname;
      return output({ redirect: `/console/signin?next=${encodeURIComponent(next)}` });
    }
    const viewer = viewerOf(who.principal, who.session, auth !== null, kbs, csrf);
    const found = findPage(pages, segments);
    if (found === null) return output(notFound(viewer));
    const { page, params } = found;
    const served = page.methods.includes(method === "HEAD" ? "GET" : method);
    if (!served)
      return output(
        {
          status: 405,
          html: errorPage(viewer, 405, "Method not allowed", `This page does not take ${method}.`),
        },
        { Allow: page.methods.includes("GET") ? "GET, HEAD" : page.methods.join(", ") },
      );
    let form: URLSearchParams | null = null;
    if (method === "POST") {
      const read = await readForm(input);
      if ("refusal" in read) return read.refusal === null ? null : output(read.refusal);
      form = read.form;
    }
    const req: ConsoleRequest = {
      method: method as ConsoleMethod,
      path,
      params,
      query: input.query,
      form,
      viewer,
    };
    if (method === "POST" && !(sameOrigin(input.header("origin"), input.origin) && checkCsrf(req)))
      return output({
        status: 403,
        html: errorPage(
          viewer,
          403,
          "Refused",
          "The form was not sent from this console page (CSRF check failed). Reload the page and try again.",
        ),
      });
    try {
      return output(await page.handle(req, kbs));
    } catch (err) {
      if (err instanceof ConsoleError) return output(failurePage(viewer, err));
      throw err;
    }
  }

  async function signinRoute(input: ConsoleInput, method: string): Promise<ConsoleOutput | null> {
    const next = localTarget(input.query.get("next"));
    if (auth === null) return output({ redirect: "/" });
    if (method !== "POST")
      return output({ status: 200, html: signinPage(anonymous(), next, false, sessions.limits) });
    const read = await readForm(input);
    if ("refusal" in read) return read.refusal === null ? null : output(read.refusal);
    const viewer = anonymous();
    if (!(sameOrigin(input.header("origin"), input.origin) && csrfMatches(read.form, viewer.csrf)))
      return output({
        status: 403,
        html: errorPage(
          viewer,
          403,
          "Refused",
          "The sign-in form was not sent from this console (CSRF check failed). Reload the page and try again.",
        ),
      });
    const target = localTarget(read.form.get("next"));
    const cookie = await signIn(read.form.get("token") ?? "", auth, sessions, input.audiences);
    if (cookie === null)
      return output({ status: 401, html: signinPage(viewer, target, true, sessions.limits) });
    return output({ redirect: target }, { "Set-Cookie": sessionCookie(cookie, input.secure) });
  }

  async function signoutRoute(input: ConsoleInput, method: string): Promise<ConsoleOutput | null> {
    if (method !== "POST")
      return output({ status: 405, text: "sign out with the form's POST" }, { Allow: "POST" });
    const read = await readForm(input);
    if ("refusal" in read) return read.refusal === null ? null : output(read.refusal);
    const who = await authenticate(auth, sessions, input.header("cookie"), input.audiences);
    const viewer =
      who === null ? anonymous() : viewerOf(who.principal, who.session, true, kbs, csrf);
    if (
      who !== null &&
      !(sameOrigin(input.header("origin"), input.origin) && csrfMatches(read.form, viewer.csrf))
    )
      return output({ status: 403, html: errorPage(viewer, 403, "Refused", "CSRF check failed.") });
    const cookie = cookieOf(input.header("cookie"), SESSION_COOKIE);
    if (cookie !== undefined) sessions.delete(cookie);
    return output(
      { redirect: auth === null ? "/" : "/console/signin" },
      { "Set-Cookie": sessionCookie(null, input.secure) },
    );
  }

  return { handle, kbs, sessions, warmer };
}

type FormRead = { form: URLSearchParams } | { refusal: ConsoleReply | null };

/** The urlencoded body of a POST, capped; a refusal (null: the client went away). */
async function readForm(input: ConsoleInput): Promise<FormRead> {
  const type = (input.header("content-type") ?? "").split(";")[0]?.trim().toLowerCase();
  if (type !== FORM_URLENCODED)
    return {
      refusal: { status: 415, text: `a console form is sent as ${FORM_URLENCODED}` },
    };
  const body = await input.readBody(MAX_FORM_BYTES);
  if (!body.ok)
    return {
      refusal:
        body.reason === "aborted"
          ? null
          : { status: 413, text: `form over ${MAX_FORM_BYTES} bytes` },
    };
  return { form: new URLSearchParams(body.bytes.toString("utf8")) };
}

function errorPage(viewer: Viewer, status: number, heading: string, message: string): string {
  return layout({ title: `${status} ${heading}`, viewer, body: errorBody(heading, message) });
}

/** Identical for a missing and a hidden resource (hidden ≡ missing). */
function notFound(viewer: Viewer): ConsoleReply {
  return {
    status: 404,
    html: errorPage(
      viewer,
      404,
      "Not found",
      "There is nothing here, or nothing this token may see.",
    ),
  };
}

function failurePage(viewer: Viewer, err: ConsoleError): ConsoleReply {
  switch (err.code) {
    case "not_found":
      return notFound(viewer);
    case "forbidden":
      return {
        status: 403,
        html: errorPage(viewer, 403, "Forbidden", "This token may not do that."),
      };
    case "invalid_argument":
    case "invalid_id":
      return { status: 400, html: errorPage(viewer, 400, "Bad request", err.message) };
    case "busy":
      return {
        status: 503,
        html: errorPage(viewer, 503, "Busy", "The KB is busy; try again shortly."),
      };
    default:
      return {
        status: 500,
        html: errorPage(viewer, 500, "Error", `The request failed (${err.code}).`),
      };
  }
}

/** The reply value with its headers: security headers on every one (headers.ts). */
function output(reply: ConsoleReply, extra: Record<string, string> = {}): ConsoleOutput {
  if ("redirect" in reply)
    return {
      status: 303,
      headers: {
        ...securityHeaders("no-store"),
        ...extra,
        Location: reply.redirect,
        "Content-Length": "0",
      },
      body: "",
    };
  if ("html" in reply)
    return withBody(reply.status, "text/html; charset=utf-8", reply.html, extra, "no-store");
  if ("text" in reply)
    return withBody(reply.status, "text/plain; charset=utf-8", reply.text, extra, "no-store");
  const headers: Record<string, string> = { ...extra };
  if (reply.attachment !== undefined)
    headers["Content-Disposition"] =
      `attachment; filename="${reply.attachment.replace(/[^A-Za-z0-9._-]/g, "_")}"`;
  return withBody(
    reply.status,
    reply.contentType,
    reply.bytes,
    headers,
    reply.maxAge === undefined ? "no-store" : { maxAge: reply.maxAge },
  );
}

function withBody(
  status: number,
  contentType: string,
  body: string | Buffer,
  extra: Record<string, string>,
  cache: "no-store" | { maxAge: number },
): ConsoleOutput {
  return {
    status,
    headers: {
      ...securityHeaders(cache),
      ...extra,
      "Content-Type": contentType,
      "Content-Length": String(Buffer.byteLength(body)),
    },
    body,
  };
}
