/**
 * Domain errors with stable string codes (design.md P6). Code matches on `code`, never on message
 * text. The tool boundary renders them as `<code>: <message>`.
 */
export type KbErrorCode =
  | "not_found"
  | "stale_write"
  | "invalid_id"
  | "invalid_argument"
  | "invalid_frontmatter"
  | "expanded_ambiguous"
  | "old_string_not_found"
  | "old_string_ambiguous"
  | "already_exists"
  | "validation_failed"
  | "reserved_name"
  | "too_large"
  | "not_empty"
  | "not_configured"
  | "conflict"
  | "git_failed"
  | "locked"
  | "rate_limited"
  | "busy"
  | "forbidden"
  | "internal";

export class KbError extends Error {
  readonly code: KbErrorCode;
  /** Extra structured facts for callers (never rendered automatically). */
  readonly details?: Record<string, unknown>;

  constructor(code: KbErrorCode, message: string, details?: Record<string, unknown>) {
    super(message);
    this.name = "KbError";
    this.code = code;
    this.details = details;
  }
}

export function isKbError(err: unknown, code?: KbErrorCode): err is KbError {
  return err instanceof KbError && (code === undefined || err.code === code);
}

/**
 * A bad setting — YAML key, environment variable, flag, token or role spec — found while the
 * configuration is resolved at start-up (design.md P7). Kept apart from KbError, whose codes are
 * the outcome of a KB operation: a setting error is never a tool result. The message names the
 * setting and how to fix it; the CLI renders it `invalid_argument: <message>` and exits 2.
 */
export class SettingError extends Error {
  /** The code the CLI prints, the same one a bad tool argument has. */
  readonly code = "invalid_argument" as const;

  constructor(message: string) {
    super(message);
    this.name = "SettingError";
  }
}

export function isSettingError(err: unknown): err is SettingError {
  return err instanceof SettingError;
}
