/**
 * Path containment: the one function that turns a KB-root-relative path into an absolute one
 * (STYLE §3). Refuses absolute paths, `..` escapes, empty and hidden segments.
 */
import { posix, resolve, sep } from "node:path";
import { KbError } from "./errors.js";

/** Normalizes a KB-root-relative POSIX path; throws `invalid_argument` when it escapes. */
export function normalizeRelPath(path: string, what = "path"): string {
  if (typeof path !== "string" || path.trim() === "") {
    throw new KbError("invalid_argument", `${what} is empty`);
  }
  if (path.includes("\\") || path.includes("\0")) {
    throw new KbError("invalid_argument", `${what} "${path}" contains a backslash or NUL`);
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
