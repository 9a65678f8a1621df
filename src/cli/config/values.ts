/** Parsing of scalar settings from env and flags; every error names the setting. */
import { SettingError } from "../../common/errors.js";
import type { Picked } from "./pick.js";
import type { HttpAddress } from "./types.js";

export const DEFAULT_PORT = 39273;
export const DEFAULT_HOST = "127.0.0.1";

/** Accepts `host:port`, `[v6]:port`, `:port`, `port`, or a bare host. */
export function parseHttpAddress(value: string | number, setting: string): HttpAddress {
  const text = String(value).trim();
  const fail = () =>
    new SettingError(
      `${setting}: '${text}' is not an address; use host:port (e.g. 127.0.0.1:${DEFAULT_PORT}), :port or a port number`,
    );
  if (text === "") throw fail();
  if (/^\d+$/.test(text)) return { host: DEFAULT_HOST, port: parsePort(text, fail) };
  const v6 = /^\[([^\]]+)\](?::(\d+))?$/.exec(text);
  if (v6) return { host: v6[1] as string, port: v6[2] ? parsePort(v6[2], fail) : DEFAULT_PORT };
  const colon = text.lastIndexOf(":");
  if (colon === -1) return { host: text, port: DEFAULT_PORT };
  const host = text.slice(0, colon) || DEFAULT_HOST;
  if (host.includes(":")) throw fail();
  return { host, port: parsePort(text.slice(colon + 1), fail) };
}

function parsePort(text: string, fail: () => Error): number {
  const port = Number(text);
  if (!/^\d+$/.test(text) || port < 0 || port > 65535) throw fail();
  return port;
}

const TRUE = new Set(["1", "true", "yes", "on"]);
const FALSE = new Set(["0", "false", "no", "off"]);

function parseBoolean(value: string, setting: string): boolean {
  const v = value.trim().toLowerCase();
  if (TRUE.has(v)) return true;
  if (FALSE.has(v)) return false;
  throw new SettingError(`${setting}: '${value}' is not a boolean; use true or false`);
}

/** A YAML boolean as it is; text from a flag or variable parsed, a bad one named by its source. */
export function booleanSetting(picked: Picked<string | boolean>): boolean {
  return typeof picked.value === "boolean"
    ? picked.value
    : parseBoolean(picked.value, picked.source);
}

/** Upper bound of `index.refresh_seconds` (one day; Node timers overflow past ~24.8 days). */
export const MAX_REFRESH_SECONDS = 86_400;

/** A refresh interval in seconds: 0 (off) up to MAX_REFRESH_SECONDS, fractions allowed. */
export function parseRefreshSeconds(value: string, setting: string): number {
  const text = value.trim();
  const seconds = Number(text);
  if (text === "" || !Number.isFinite(seconds) || seconds < 0 || seconds > MAX_REFRESH_SECONDS)
    throw new SettingError(
      `${setting}: '${value}' is not a number of seconds; use 0 (off) up to ${MAX_REFRESH_SECONDS}, e.g. 30`,
    );
  return seconds;
}

/** Milliseconds per unit of a duration setting (`500ms`, `30s`, `2m`, `8h`, `7d`). */
export const DURATION_UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
export type DurationUnit = keyof typeof DURATION_UNIT_MS;

/**
 * Seconds (a number or digits) or `<n><unit>` with one of `units` → ms; NaN when it is neither
 * (the caller names the setting and its own bounds in the error).
 */
export function durationMs(value: unknown, units: readonly DurationUnit[]): number {
  const text =
    typeof value === "number" ? String(value) : typeof value === "string" ? value.trim() : "";
  const m = /^(\d+(?:\.\d+)?)([a-z]+)?$/.exec(text);
  const unit = (m?.[2] ?? "s") as DurationUnit;
  if (!m || !units.includes(unit)) return Number.NaN;
  return Math.round(Number(m[1]) * DURATION_UNIT_MS[unit]);
}

export function parseList(value: string): string[] {
  return value
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
}

/**
 * A KB's default mount name: its folder name as written (case kept, as in Go), runs of
 * characters other than letters, digits, `_` and `-` → `-` (docs/decisions.md, "KB names keep
 * their case").
 */
export function normalizeKbName(folder: string): string {
  return folder.replace(/[^A-Za-z0-9_-]+/g, "-").replace(/^-+|-+$/g, "");
}

export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, "");
  return h === "localhost" || h === "::1" || /^127(?:\.\d{1,3}){3}$/.test(h);
}
