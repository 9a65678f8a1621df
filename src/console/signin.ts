/**
 * `/console/signin` and `/console/signout` (docs/console.md "Signing in"). Sign-in exchanges a
 * bearer token, pasted once, for a session cookie: the token is checked by the same function the
 * MCP route uses, so a wrong one costs what a wrong bearer costs there (no added timing signal),
 * and is answered 401 with one clear sentence that never repeats it.
 */
import { type BearerPaths, principalOfBearer } from "../auth/oauth/bearer-principal.js";
import { CSRF_FIELD } from "./csrf.js";
import { html } from "./html.js";
import { errorBody, layout } from "./page.js";
import { consoleUrl } from "./paths.js";
import type { SessionStore } from "./session.js";
import type { Viewer } from "./types.js";

/**
 * The sign-in page; `failed` adds the refusal message (and the page is answered 401). `limits`
 * are the session store's (the configured idle timeout and lifetime), told to the user.
 */
export function signinPage(
  viewer: Viewer,
  next: string,
  failed: boolean,
  limits: { idleMs: number; absoluteMs: number },
): string {
  const body = html`<h1>Sign in</h1>
${failed ? html`<p class="error" role="alert">That token was not accepted: it is unknown, expired or malformed. Paste the bearer token you use for MCP.</p>` : null}
<form class="signin" method="post" action="${consoleUrl.signin()}">
<input type="hidden" name="${CSRF_FIELD}" value="${viewer.csrf}">
<input type="hidden" name="next" value="${next}">
<label for="token">Bearer token</label>
<input id="token" name="token" type="password" autocomplete="off" required spellcheck="false">
<p class="hint">The token is held by the server for this session only (${span(limits.idleMs)} idle, ${span(limits.absoluteMs)} at most) and is never shown again.</p>
<button type="submit">Sign in</button>
</form>`;
  return layout({ title: "Sign in", viewer, body });
}

/** A duration as the hint says it: `8 hours`, `30 minutes`, `90 seconds`, `2.5 days`. */
export function span(ms: number): string {
  const units: Array<[number, string]> = [
    [86_400_000, "day"],
    [3_600_000, "hour"],
    [60_000, "minute"],
  ];
  for (const [size, name] of units)
    if (ms >= size && (ms % size === 0 || ms >= 2 * size)) {
      const n = Math.round((ms / size) * 10) / 10;
      return `${n} ${name}${n === 1 ? "" : "s"}`;
    }
  const s = Math.round(ms / 100) / 10;
  return `${s} second${s === 1 ? "" : "s"}`;
}

/** The page a request without a session gets instead of a form POST's effect. */
export function signedOutPage(viewer: Viewer): string {
  return layout({
    title: "Signed out",
    viewer,
    body: errorBody("Not signed in", "Sign in again to continue."),
  });
}

/** A safe local redirect target: a path on this server, never `//host` or a scheme. */
export function localTarget(next: string | null | undefined): string {
  if (typeof next !== "string" || !next.startsWith("/")) return "/";
  if (next.startsWith("//") || next.startsWith("/\\")) return "/";
  // Control characters (a CR/LF would split the Location header) send the viewer home.
  for (const ch of next) if (ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f) return "/";
  return next;
}

/** The session cookie value for a bearer that authenticates; null when it does not. */
export async function signIn(
  token: string,
  auth: BearerPaths,
  sessions: SessionStore,
  audiences: readonly string[],
): Promise<string | null> {
  const bearer = token.trim();
  if (bearer === "" || bearer.length > 8192) return null;
  const principal = await principalOfBearer(bearer, auth, audiences);
  if (principal === null) return null;
  return sessions.create(bearer).cookie;
}
