/**
 * The `Host` header, parsed strictly (docs/decisions.md "Strict `Host`"): `host[:port]` and nothing
 * else, where host is a DNS name or IPv4 address (letters, digits, `.`, `-`, `_`) or a bracketed
 * IPv6 literal, and port 1–5 digits up to 65535. `localhost:1/evil`, `a b`, `user@host` and an
 * empty port are refused (400) before any other check, so a value that reaches the rebinding guard
 * or the RFC 9728 metadata (which echoes it) is always a plain authority.
 */

export interface HostValue {
  /** The header value as sent (already known to be well-formed). */
  readonly value: string;
  /** Host name, lower-cased, IPv6 brackets removed. */
  readonly hostname: string;
}

const NAME = /^[a-z0-9_](?:[a-z0-9._-]*[a-z0-9_])?$/i;
const IPV6 = /^\[[0-9a-f:.]+\]$/i;
const PORT = /^\d{1,5}$/;

/** The parsed value, or null when `value` is not `host[:port]`. */
export function parseHost(value: string): HostValue | null {
  let host = value;
  let port: string | null = null;
  if (value.startsWith("[")) {
    const close = value.indexOf("]");
    if (close === -1) return null;
    host = value.slice(0, close + 1);
    const rest = value.slice(close + 1);
    if (rest !== "") {
      if (!rest.startsWith(":")) return null;
      port = rest.slice(1);
    }
    if (!IPV6.test(host)) return null;
  } else {
    const colon = value.indexOf(":");
    if (colon !== -1) {
      host = value.slice(0, colon);
      port = value.slice(colon + 1);
    }
    if (!NAME.test(host)) return null;
  }
  if (port !== null && (!PORT.test(port) || Number(port) > 65535)) return null;
  const hostname = (host.startsWith("[") ? host.slice(1, -1) : host).toLowerCase();
  return { value, hostname };
}
