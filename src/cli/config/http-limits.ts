/**
 * HTTP connection limits, resolved like every setting (pick.ts): flag > env > YAML > default, a
 * bad value reported with the name of the flag, variable or key that set it.
 *   max_connections          CARTOGRAPHER_MAX_CONNECTIONS          --max-connections   256
 *   headers_timeout_seconds  CARTOGRAPHER_HEADERS_TIMEOUT_SECONDS                      10
 *   request_timeout_seconds  CARTOGRAPHER_REQUEST_TIMEOUT_SECONDS                      30
 */
import { SettingError } from "../../common/errors.js";

export interface HttpLimits {
  maxConnections: number;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
}

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
  file: HttpLimitsFile,
  env: Record<string, string | undefined>,
  flags: { maxConnections?: string },
): HttpLimits {
  const maxConnections =
    flags.maxConnections !== undefined
      ? parseCount(flags.maxConnections, "--max-connections")
      : env.CARTOGRAPHER_MAX_CONNECTIONS
        ? parseCount(env.CARTOGRAPHER_MAX_CONNECTIONS, "CARTOGRAPHER_MAX_CONNECTIONS")
        : (file.max_connections ?? DEFAULT_HTTP_LIMITS.maxConnections);
  const seconds = (envKey: string, fileValue: number | undefined, fallbackMs: number) =>
    env[envKey]
      ? parseSeconds(env[envKey] as string, envKey) * 1000
      : fileValue !== undefined
        ? fileValue * 1000
        : fallbackMs;
  const headersTimeoutMs = seconds(
    "CARTOGRAPHER_HEADERS_TIMEOUT_SECONDS",
    file.headers_timeout_seconds,
    DEFAULT_HTTP_LIMITS.headersTimeoutMs,
  );
  const requestTimeoutMs = seconds(
    "CARTOGRAPHER_REQUEST_TIMEOUT_SECONDS",
    file.request_timeout_seconds,
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
