/**
 * The security headers of every console reply (docs/console.md "Security"): a strict CSP (no
 * inline script or style, nothing remote, no framing, no <base>), nosniff, no referrer, and no
 * caching of pages (they show what one principal may see).
 */

export const CONSOLE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

export function securityHeaders(cache: "no-store" | { maxAge: number }): Record<string, string> {
  return {
    "Content-Security-Policy": CONSOLE_CSP,
    "X-Content-Type-Options": "nosniff",
    // Not no-referrer: with it Chromium sends `Origin: null` on the console's own form POSTs, which
    // the Origin checks must refuse (docs/decisions.md "Console: Referrer-Policy same-origin").
    "Referrer-Policy": "same-origin",
    "X-Frame-Options": "DENY",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
    "Cache-Control": cache === "no-store" ? "no-store" : `private, max-age=${cache.maxAge}`,
  };
}
