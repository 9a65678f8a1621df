/**
 * CSRF protection of console forms (docs/decisions.md "Console: CSRF"). The token is an HMAC of
 * the session key under a per-process secret (session-bound, nothing more to store); with auth off
 * it is bound to the fixed word `local`. Every POST must carry it as `_csrf`, and must come from
 * the console's own origin (`Origin` present and equal to it); the session cookie is also
 * SameSite=Strict. Any doubt refuses the request (fails closed).
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { ConsoleRequest } from "./types.js";

export const CSRF_FIELD = "_csrf";

export class CsrfTokens {
  readonly #secret: Buffer;
  constructor(secret: Buffer = randomBytes(32)) {
    this.#secret = secret;
  }

  /** The token of a session key (session.ts), or of `local` with auth off. */
  tokenFor(sessionKey: string | null): string {
    return createHmac("sha256", this.#secret)
      .update(`csrf\u0000${sessionKey ?? "local"}`)
      .digest("base64url");
  }
}

/** True when the POSTed `_csrf` field equals the viewer's token (constant-time compare). */
export function checkCsrf(req: Pick<ConsoleRequest, "form" | "viewer">): boolean {
  return csrfMatches(req.form, req.viewer.csrf);
}

/** True when `form`'s `_csrf` field is exactly `expected`. */
export function csrfMatches(form: URLSearchParams | null, expected: string): boolean {
  const given = form?.get(CSRF_FIELD);
  if (typeof given !== "string") return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * True when `origin` (the request's Origin header) is exactly `base` (scheme://host[:port] of
 * the console). A missing Origin is refused: browsers send one on every form POST.
 */
export function sameOrigin(origin: string | undefined, base: string): boolean {
  if (origin === undefined || origin === "null") return false;
  try {
    return new URL(origin).origin === new URL(base).origin;
  } catch {
    return false;
  }
}
