/**
 * Who a console request runs as (docs/decisions.md "Console: sessions hold the bearer in memory"):
 * with auth off, the local admin (loopback peers only, as /mcp); with auth on, the principal the
 * session's bearer authenticates as right now, through the same function the MCP route uses
 * (auth/oauth/bearer-principal.ts principalOfBearer). Nothing else makes a principal.
 */
import { hasWholeKb } from "../auth/decide.js";
import { type BearerPaths, principalOfBearer } from "../auth/oauth/bearer-principal.js";
import type { Principal } from "../auth/types.js";
import { LOCAL_ADMIN } from "../mcp/context.js";
import type { CsrfTokens } from "./csrf.js";
import type { ConsoleKbs } from "./kbs.js";
import { cookieOf, SESSION_COOKIE, type Session, type SessionStore } from "./session.js";
import type { Viewer } from "./types.js";

/** The principal of a request that is not signed in (sign-in page only): may read nothing. */
export const ANONYMOUS: Principal = Object.freeze({
  id: "anonymous",
  policy: Object.freeze({ admin: false, rules: Object.freeze([]) }),
});

export function viewerOf(
  principal: Principal,
  session: Session | null,
  signedIn: boolean,
  kbs: ConsoleKbs,
  csrf: CsrfTokens,
): Viewer {
  return Object.freeze({
    principal,
    label: principal.id,
    signedIn,
    isAdmin: (kb: string) => hasWholeKb(principal.policy, kb, "rw"),
    csrf: csrf.tokenFor(session?.key ?? null),
    kbs: Object.freeze(kbs.readableBy(principal)),
  });
}

export interface Authenticated {
  readonly principal: Principal;
  readonly session: Session | null;
}

/**
 * The request's principal: LOCAL_ADMIN with auth off; else the session cookie's bearer,
 * authenticated again now. null = not signed in (or the token stopped working: the session is
 * dropped).
 */
export async function authenticate(
  auth: BearerPaths | null,
  sessions: SessionStore,
  cookieHeader: string | undefined,
  audiences: readonly string[],
): Promise<Authenticated | null> {
  if (auth === null) return { principal: LOCAL_ADMIN, session: null };
  const cookie = cookieOf(cookieHeader, SESSION_COOKIE);
  if (cookie === undefined || cookie === "") return null;
  const session = sessions.get(cookie);
  if (session === null) return null;
  const principal = await principalOfBearer(session.bearer, auth, audiences);
  if (principal === null) {
    sessions.delete(cookie);
    return null;
  }
  return { principal, session };
}
