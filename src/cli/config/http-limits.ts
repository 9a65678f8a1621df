/**
 * HTTP connection limits, resolved like every setting (pick.ts): flag > env > YAML > default, a
 * bad value reported with the name of the flag, variable or key that set it.
 *   max_connections          CARTOGRAPHER_MAX_CONNECTIONS          --max-connections   256
 *   headers_timeout_seconds  CARTOGRAPHER_HEADERS_TIMEOUT_SECONDS                      10
 *   request_timeout_seconds  CARTOGRAPHER_REQUEST_TIMEOUT_SECONDS                      30
 */
import { SettingError } from "../../common/errors.js";
import type { Picked, Settings } from "./pick.js";
import type { HttpLimits } from "./types.js";

export const DEFAULT_HTTP_LIMITS: HttpLimits = {
  maxConnections: 256,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
};

/** Longest timeout accepted (an hour): a larger one only lets slow clients hold connections. */
export const MAX_TIMEOUT_SECONDS = 3600;
export const MAX_CONNECTIONS = 65_536;

export interface HttpLimitsFile {
  max_connections?: number;
  headers_timeout_seconds?: number;
  request_timeout_seconds?: number;
}

export function resolveHttpLimits(
  settings: Settings,
  file: HttpLimitsFile,
  flags: { maxConnections?: string },
): HttpLimits {
  // A YAML number was validated by the schema; text from a flag or variable is parsed here.
  const number = (picked: Picked<string | number>, parse: typeof parseCount) =>
    typeof picked.value === "number" ? picked.value : parse(picked.value, picked.source);
  const maxConnections = number(
    settings.pick(
      {
        flag: ["--max-connections", flags.maxConnections],
        env: "CARTOGRAPHER_MAX_CONNECTIONS",
        key: ["max_connections", file.max_connections],
      },
      DEFAULT_HTTP_LIMITS.maxConnections,
    ),
    parseCount,
  );
  const timeoutMs = (envKey: string, fileKey: keyof HttpLimitsFile, fallbackMs: number) =>
    number(
      settings.pick({ env: envKey, key: [fileKey, file[fileKey]] }, fallbackMs / 1000),
      parseSeconds,
    ) * 1000;
  const headersTimeoutMs = timeoutMs(
    "CARTOGRAPHER_HEADERS_TIMEOUT_SECONDS",
    "headers_timeout_seconds",
    DEFAULT_HTTP_LIMITS.headersTimeoutMs,
  );
  const requestTimeoutMs = timeoutMs(
    "CARTOGRAPHER_REQUEST_TIMEOUT_SECONDS",
    "request_timeout_seconds",
    DEFAULT_HTTP_LIMITS.requestTimeoutMs,
  );
  if (requestTimeoutMs < headersTimeoutMs)
    throw new SettingError(
      `request_timeout_seconds (${requestTimeoutMs / 1000}) is shorter than headers_timeout_seconds (${headersTimeoutMs / 1000}): the whole request includes its headers; raise it`,
    );
  return { maxConnections, headersTimeoutMs, requestTimeoutMs };
}

function parseCount(value: string, setting: string): number {
  const n = Number(value.trim());
  if (!Number.isInteger(n) || n < 1 || n > MAX_CONNECTIONS)
    throw new SettingError(
      `${setting}: '${value}' is not a connection count; use a whole number from 1 to ${MAX_CONNECTIONS}, e.g. 256`,
    );
  return n;
}

function parseSeconds(value: string, setting: string): number {
  const n = Number(value.trim());
  if (value.trim() === "" || !Number.isFinite(n) || n <= 0 || n > MAX_TIMEOUT_SECONDS)
    throw new SettingError(
      `${setting}: '${value}' is not a number of seconds; use more than 0 up to ${MAX_TIMEOUT_SECONDS}, e.g. 30`,
    );
  return n;
}
