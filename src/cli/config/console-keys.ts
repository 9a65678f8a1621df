/**
 * The `console` block (docs/console.md "Signing in"): how long a console session lives, resolved
 * like every setting (pick.ts): env > YAML > default, a bad value reported with the name of the
 * variable or key that set it and how to fix it.
 *   console.session_idle_timeout  CARTOGRAPHER_CONSOLE_SESSION_IDLE_TIMEOUT  8h
 *   console.session_lifetime      CARTOGRAPHER_CONSOLE_SESSION_LIFETIME      24h
 * A value is seconds (a number or digits) or a duration `90s`, `30m`, `8h`, `7d`.
 */
import { z } from "zod";
import { SettingError } from "../../common/errors.js";
import type { Settings } from "./pick.js";
import type { ConsoleSettings } from "./types.js";
import { durationMs } from "./values.js";

export const DEFAULT_CONSOLE: ConsoleSettings = {
  sessionIdleMs: 8 * 3_600_000,
  sessionLifetimeMs: 24 * 3_600_000,
};

/** Shortest accepted limit (a second: only tests want less than minutes). */
export const MIN_SESSION_SECONDS = 1;
/** Longest idle timeout: a week. */
export const MAX_IDLE_SECONDS = 7 * 86_400;
/** Longest lifetime: 30 days — the bearer stays in memory that long at most. */
export const MAX_LIFETIME_SECONDS = 30 * 86_400;

export const consoleSchema = z.strictObject({
  session_idle_timeout: z.union([z.number(), z.string()]).optional(),
  session_lifetime: z.union([z.number(), z.string()]).optional(),
});

export type ConsoleSection = z.infer<typeof consoleSchema>;

export function resolveConsole(
  settings: Settings,
  section: ConsoleSection | undefined,
): ConsoleSettings {
  const limit = (
    env: string,
    key: keyof ConsoleSection,
    fallbackMs: number,
    maxSeconds: number,
  ): number => {
    const picked = settings.pick({ env, key: [`console.${key}`, section?.[key]] });
    return picked ? parseSessionDuration(picked.value, picked.source, maxSeconds) : fallbackMs;
  };
  const sessionIdleMs = limit(
    "CARTOGRAPHER_CONSOLE_SESSION_IDLE_TIMEOUT",
    "session_idle_timeout",
    DEFAULT_CONSOLE.sessionIdleMs,
    MAX_IDLE_SECONDS,
  );
  const sessionLifetimeMs = limit(
    "CARTOGRAPHER_CONSOLE_SESSION_LIFETIME",
    "session_lifetime",
    DEFAULT_CONSOLE.sessionLifetimeMs,
    MAX_LIFETIME_SECONDS,
  );
  if (sessionIdleMs > sessionLifetimeMs)
    throw new SettingError(
      `console.session_idle_timeout (${seconds(sessionIdleMs)}) is longer than console.session_lifetime (${seconds(sessionLifetimeMs)}): a session ends at its lifetime anyway; lower the idle timeout or raise the lifetime`,
    );
  return { sessionIdleMs, sessionLifetimeMs };
}

/** Seconds (number or digits) or `<n>s|m|h|d` → ms, within MIN_SESSION_SECONDS..maxSeconds. */
export function parseSessionDuration(value: unknown, setting: string, maxSeconds: number): number {
  const ms = durationMs(value, ["s", "m", "h", "d"]);
  if (!Number.isFinite(ms) || ms < MIN_SESSION_SECONDS * 1000 || ms > maxSeconds * 1000)
    throw new SettingError(
      `${setting}: '${String(value)}' is not a session duration; use seconds (3600) or 90s, 30m, 8h, 7d, from ${MIN_SESSION_SECONDS} s up to ${maxSeconds / 86_400} days`,
    );
  return ms;
}

function seconds(ms: number): string {
  return `${ms / 1000} s`;
}
