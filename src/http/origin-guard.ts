/**
 * DNS-rebinding protection and CORS. Pure functions over header values.
 *
 * Rebinding: a browser page on an attacker's domain that re-resolves to 127.0.0.1 still sends
 * its own `Host`/`Origin`. So with a loopback bind, `Host` must be a loopback name (or an
 * allowed host) and an `Origin`, when present, a loopback origin (or an allowed/CORS origin);
 * otherwise 403. With a non-loopback bind the lists are enforced only when configured.
 */

export interface OriginPolicy {
  loopbackBind: boolean;
  allowedHosts: readonly string[];
  /** allowedOrigins ∪ corsOrigins. */
  allowedOrigins: readonly string[];
  corsOrigins: readonly string[];
}

const LOOPBACK_NAMES = new Set(["localhost", "127.0.0.1", "::1", "[::1]"]);

/** True for 127.0.0.0/8, ::1 and localhost (what counts as a loopback bind or host name). */
export function isLoopbackName(name: string): boolean {
  const n = name.toLowerCase();
  return LOOPBACK_NAMES.has(n) || /^127(\.\d{1,3}){3}$/.test(n) || n.endsWith(".localhost");
}

/** True for a loopback peer address (127.0.0.0/8, ::1, IPv4-mapped); unknown = false. */
export function isLoopbackPeer(address: string | undefined): boolean {
  if (address === undefined) return false;
  const a = address.startsWith("::ffff:") ? address.slice(7) : address;
  return a === "::1" || /^127(\.\d{1,3}){3}$/.test(a);
}

/** The host name of a `Host` header value (port and IPv6 brackets removed), lower-cased. */
export function hostnameOf(hostHeader: string): string {
  const h = hostHeader.trim().toLowerCase();
  if (h.startsWith("[")) return h.slice(1, h.indexOf("]") === -1 ? undefined : h.indexOf("]"));
  const colon = h.indexOf(":");
  return colon === -1 ? h : h.slice(0, colon);
}

/** null when the request may proceed; otherwise the reason for a 403. */
export function rebindingViolation(
  policy: OriginPolicy,
  host: string | undefined,
  origin: string | undefined,
): string | null {
  if (policy.loopbackBind || policy.allowedHosts.length > 0) {
    if (host === undefined || host === "") return "missing Host header";
    const name = hostnameOf(host);
    const allowed =
      (policy.loopbackBind && isLoopbackName(name)) ||
      policy.allowedHosts.some(
        (h) => h.toLowerCase() === host.toLowerCase() || h.toLowerCase() === name,
      );
    if (!allowed)
      return `Host ${JSON.stringify(host)} is not allowed (add it to the allowed hosts)`;
  }
  if (origin !== undefined && (policy.loopbackBind || policy.allowedOrigins.length > 0)) {
    if (
      !policy.allowedOrigins.includes(origin) &&
      !(policy.loopbackBind && isLoopbackOrigin(origin))
    ) {
      return `Origin ${JSON.stringify(origin)} is not allowed (add it to the allowed or CORS origins)`;
    }
  }
  return null;
}

function isLoopbackOrigin(origin: string): boolean {
  try {
    const url = new URL(origin);
    return (url.protocol === "http:" || url.protocol === "https:") && isLoopbackName(url.hostname);
  } catch {
    return false;
  }
}

const EXPOSED = "Mcp-Session-Id, Mcp-Protocol-Version, WWW-Authenticate";
const ALLOWED_REQUEST_HEADERS =
  "Content-Type, Authorization, Accept, Mcp-Protocol-Version, Mcp-Session-Id, Last-Event-ID";

/** CORS headers of a response to `origin`; empty unless the origin is configured for CORS. */
export function corsHeaders(
  policy: OriginPolicy,
  origin: string | undefined,
): Record<string, string> {
  if (origin === undefined || !policy.corsOrigins.includes(origin)) return {};
  return {
    "Access-Control-Allow-Origin": origin,
    "Access-Control-Expose-Headers": EXPOSED,
    Vary: "Origin",
  };
}

/**
 * Headers of a successful preflight for a path serving `methods` (OPTIONS is added); null when
 * the origin is not configured for CORS.
 */
export function preflightHeaders(
  policy: OriginPolicy,
  origin: string | undefined,
  methods: readonly string[],
): Record<string, string> | null {
  if (origin === undefined || !policy.corsOrigins.includes(origin)) return null;
  return {
    ...corsHeaders(policy, origin),
    "Access-Control-Allow-Methods": [...methods, "OPTIONS"].join(", "),
    "Access-Control-Allow-Headers": ALLOWED_REQUEST_HEADERS,
    "Access-Control-Max-Age": "600",
  };
}
