/**
 * Path containment: the one function that turns a KB-root-relative path into an absolute one
 * (design.md P3). Refuses absolute paths, `..` escapes, empty and hidden segments.
 */
import { posix, resolve, sep } from "node:path";
import { KbError } from "./errors.js";

/**
 * Longest path segment (as for ids, ids.ts) and path, in UTF-8 bytes: far below NAME_MAX (255,
 * which temp names and `.md` must still fit) and PATH_MAX, so no path reaches ENAMETOOLONG.
 */
export const MAX_SEGMENT_BYTES = 128;
export const MAX_PATH_BYTES = 512;
/**
 * C0/C1 controls and the bidi marks, embeddings, overrides and isolates that make a path display
 * as something else (`U+202E` turns `gpj.exe` into `exe.jpg`): refused in every path.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
export const UNSAFE_CHAR = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;

/** `text` with every unsafe character written as `\uXXXX`, so an error message never carries one. */
export function printable(text: string): string {
  return text.replace(new RegExp(UNSAFE_CHAR.source, "gu"), (c) => {
    return `\\u${(c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0")}`;
  });
}

/** Normalizes a KB-root-relative POSIX path; throws `invalid_argument` when it escapes. */
export function normalizeRelPath(path: string, what = "path"): string {
  if (typeof path !== "string" || path.trim() === "") {
    throw new KbError("invalid_argument", `${what} is empty`);
  }
  if (path.includes("\\") || path.includes("\0")) {
    throw new KbError(
      "invalid_argument",
      `${what} "${printable(path)}" contains a backslash or NUL`,
    );
  }
  if (UNSAFE_CHAR.test(path)) {
    throw new KbError(
      "invalid_argument",
      `${what} "${printable(path)}" contains a control or bidi character (shown escaped): remove it`,
    );
  }
  if (Buffer.byteLength(path) > MAX_PATH_BYTES) {
    throw new KbError(
      "invalid_argument",
      `${what} is ${Buffer.byteLength(path)} bytes long; the limit is ${MAX_PATH_BYTES}`,
    );
  }
  if (path.startsWith("/"))
    throw new KbError("invalid_argument", `${what} "${path}" must be relative to the KB root`);
  const norm = posix.normalize(path);
  if (norm === "." || norm.startsWith("../") || norm === ".." || norm.endsWith("/")) {
    throw new KbError(
      "invalid_argument",
      `${what} "${path}" escapes the KB root or names a folder`,
    );
  }
  for (const segment of norm.split("/")) {
    if (Buffer.byteLength(segment) > MAX_SEGMENT_BYTES) {
      throw new KbError(
        "invalid_argument",
        `${what}: segment "${segment.slice(0, 32)}…" is longer than ${MAX_SEGMENT_BYTES} bytes`,
      );
    }
    if (segment.startsWith(".")) {
      throw new KbError(
        "invalid_argument",
        `${what} "${path}": hidden segment "${segment}" is not allowed`,
      );
    }
  }
  return norm;
}

/** Absolute path of a KB-root-relative path, guaranteed inside `root`. */
export function resolveInside(root: string, relPath: string): string {
  const abs = resolve(root, relPath);
  const base = resolve(root);
  if (abs !== base && !abs.startsWith(base + sep)) {
    throw new KbError("invalid_argument", `path "${relPath}" escapes the KB root`);
  }
  return abs;
}
