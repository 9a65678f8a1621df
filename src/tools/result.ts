/**
 * The one place tool results and errors become text (design.md P6). Results are compact JSON (fewer
 * tokens than pretty JSON); errors are `<code>: <message>`. Denials are byte-exact: `forbidden`,
 * and `not found` for a hidden exact resource, so a denial never reveals more than its name.
 */
import { KbError } from "../common/errors.js";
import { shortenAbsolutePaths } from "../kb/core/shorten-paths.js";

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
 * `value` with `content_hash` next to its `hash` (Go v0.5 names the same sha256 so), when it is
 * an object with a string `hash` and no `content_hash`, and likewise for each item of its
 * `results` array (a batch); anything else is returned as is.
 */
export function withContentHash(value: unknown): unknown {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return value;
  const record = value as Record<string, unknown>;
  if (Array.isArray(record.results)) {
    return { ...record, results: record.results.map((item) => withContentHash(item)) };
  }
  if (typeof record.hash !== "string" || Object.hasOwn(record, "content_hash")) return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(record)) {
    out[key] = v;
    if (key === "hash") out.content_hash = v;
  }
  return out;
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
 * `message` with no absolute server path: the KB root (and its real path) becomes relative,
 * any other absolute path shrinks to `…/<last segment>`. Every error text goes through it,
 * whatever raised the error (fs, git, SQLite), so no path of the server's disk leaks.
 */
export function scrubPaths(message: string, roots: readonly string[] = []): string {
  let out = message;
  for (const root of roots) {
    const base = root.replace(/\/+$/, "");
    if (base.length < 2) continue;
    out = out.split(`${base}/`).join("").split(base).join(".");
  }
  return shortenAbsolutePaths(out);
}

/**
 * `<code>: <message>` for a KbError; `forbidden` and hidden `not found` denials render exactly;
 * anything else is an internal failure whose message is shortened (no stack). Absolute paths are
 * scrubbed from every message ({@link scrubPaths}; `roots` are the KB root's spellings).
 */
export function renderError(err: unknown, roots: readonly string[] = []): string {
  if (err instanceof KbError) {
    if (err.code === "forbidden") return FORBIDDEN_TEXT;
    if (isHiddenDenial(err)) return NOT_FOUND_TEXT;
    return `${err.code}: ${scrubPaths(err.message, roots)}`;
  }
  const message = err instanceof Error ? err.message : String(err);
  const firstLine = scrubPaths(message.split("\n")[0] ?? "", roots);
  const short =
    firstLine.length > MAX_INTERNAL_MESSAGE
      ? `${firstLine.slice(0, MAX_INTERNAL_MESSAGE - 3)}...`
      : firstLine;
  return `internal: ${short || "unexpected failure"}`;
}
