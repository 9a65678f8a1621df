/**
 * The value checks `auth.oauth` and `auth.oauth.introspection` share (oauth-keys.ts,
 * introspection-keys.ts). Each error names the key and what would be accepted.
 */
import { SettingError } from "../../common/errors.js";

/** An https URL (http only for a loopback host, e.g. a test provider); no query or fragment. */
export function checkUrl(value: string, key: string, what: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new SettingError(`${key}: '${value}' is not a URL; give ${what}`);
  }
  const loopback = ["127.0.0.1", "localhost", "[::1]"].includes(url.hostname);
  if (url.protocol !== "https:" && !(url.protocol === "http:" && loopback))
    throw new SettingError(
      `${key}: '${value}' must be an https URL (http only on a loopback host)`,
    );
  if (url.search || url.hash)
    throw new SettingError(`${key}: '${value}' must not have a query or fragment`);
  return value;
}

/** Seconds from 0 to `max`, `fallback` when unset. */
export function checkSeconds(
  value: number | undefined,
  key: string,
  fallback: number,
  max: number,
): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value < 0 || value > max)
    throw new SettingError(`${key}: ${value} is out of range; give seconds from 0 to ${max}`);
  return value;
}
