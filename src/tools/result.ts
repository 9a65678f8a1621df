/**
 * The one place tool results and errors become text (STYLE §6). Results are compact JSON (fewer
 * tokens than pretty JSON); errors are `<code>: <message>`. Denials are byte-exact: `forbidden`,
 * and `not found` for a hidden exact resource, so a denial never reveals more than its name.
 */
import { KbError } from "../kb/errors.js";

/** Exact text of a denial for a hidden resource (identical for every tool and resource). */
export const NOT_FOUND_TEXT = "not found";
/** Exact text of a forbidden denial. */
export const FORBIDDEN_TEXT = "forbidden";

const MAX_INTERNAL_MESSAGE = 200;

/** Compact JSON of a handler's result (`undefined` renders as `{}`). */
export function renderResult(value: unknown): string {
  if (value === undefined) return "{}";
  if (typeof value === "string") return JSON.stringify(value);
  return JSON.stringify(value) ?? "{}";
}

/**
 * The KbError a denial is thrown as. `not_found_hidden` carries `details.hidden` so it renders
 * as exactly {@link NOT_FOUND_TEXT}.
 */
export function denialError(reason: "forbidden" | "not_found_hidden"): KbError {
  if (reason === "forbidden") return new KbError("forbidden", FORBIDDEN_TEXT);
  return new KbError("not_found", NOT_FOUND_TEXT, { hidden: true });
}

/** True when `err` is a hidden-resource denial made by {@link denialError}. */
export function isHiddenDenial(err: unknown): boolean {
  return err instanceof KbError && err.code === "not_found" && err.details?.hidden === true;
}

/**
 * `<code>: <message>` for a KbError; `forbidden` and hidden `not found` denials render exactly;
 * anything else is an internal failure whose message is shortened (no stack, no paths beyond it).
 */
export function renderError(err: unknown): string {
  if (err instanceof KbError) {
    if (err.code === "forbidden") return FORBIDDEN_TEXT;
    if (isHiddenDenial(err)) return NOT_FOUND_TEXT;
    return `${err.code}: ${err.message}`;
  }
  const message = err instanceof Error ? err.message : String(err);
  const firstLine = message.split("\n")[0] ?? "";
  const short =
    firstLine.length > MAX_INTERNAL_MESSAGE
      ? `${firstLine.slice(0, MAX_INTERNAL_MESSAGE - 3)}...`
      : firstLine;
  return `internal: ${short || "unexpected failure"}`;
}
