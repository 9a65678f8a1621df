/**
 * The lint contract keys of a map descriptor, read as Go v0.5 reads them (its ReadMapContract):
 * `required_fields`, `required_fields.<Type>`, `require_index_entry` and
 * `machine_path_allow_prefixes`. Reads tolerate a malformed key (the valid part applies);
 * {@link contractProblems} names what is malformed for the `contract_malformed` check. Pure.
 */
import type { FmValue, Frontmatter } from "../../kb/core/types.js";

export const ALLOW_PREFIXES_KEY = "machine_path_allow_prefixes";

/** A scalar is read as a comma-separated list, as kb/maps.ts reads required_fields. */
function items(value: FmValue | undefined): string[] {
  if (value === undefined || value === null) return [];
  const list = Array.isArray(value) ? value : String(value).split(",");
  return list.map((v) => (v === null ? "" : String(v).trim()));
}

const WINDOWS_ABSOLUTE = /^[A-Za-z]:[\\/]/;

/** An absolute POSIX or Windows-drive prefix without trailing separators, or null. */
function normalizePrefix(raw: string): string | null {
  const posix = raw.startsWith("/");
  if (!posix && !WINDOWS_ABSOLUTE.test(raw)) return null;
  const min = posix ? 1 : 3;
  let out = raw;
  while (out.length > min && (out.endsWith("/") || out.endsWith("\\"))) out = out.slice(0, -1);
  return out;
}

/**
 * The map's allowed machine-path prefixes (sorted, unique) and whether the key is malformed
 * (an empty, relative or duplicate entry; those entries are ignored).
 */
export function allowPrefixes(fm: Frontmatter): { valid: string[]; malformed: boolean } {
  const valid = new Set<string>();
  let malformed = false;
  for (const raw of items(fm[ALLOW_PREFIXES_KEY])) {
    const prefix = normalizePrefix(raw);
    if (prefix === null || valid.has(prefix)) malformed = true;
    else valid.add(prefix);
  }
  return { valid: [...valid].sort(), malformed };
}

/**
 * True when `path` is `prefix` or lies under it at a segment boundary: `/home/app` covers
 * `/home/app/x` but not `/home/app2`.
 */
export function pathHasPrefix(path: string, prefix: string): boolean {
  if (!path.startsWith(prefix)) return false;
  if (path.length === prefix.length || prefix.endsWith("/") || prefix.endsWith("\\")) return true;
  const next = path[prefix.length];
  return next === "/" || next === "\\";
}

/** Each malformed contract key of a descriptor's frontmatter, with why. */
export function contractProblems(fm: Frontmatter): { key: string; why: string }[] {
  const out: { key: string; why: string }[] = [];
  for (const [key, value] of Object.entries(fm)) {
    if (key === "require_index_entry") {
      if (value !== true && value !== false && value !== "true" && value !== "false") {
        out.push({ key, why: "must be true or false" });
      }
    } else if (key === ALLOW_PREFIXES_KEY) {
      if (allowPrefixes(fm).malformed) {
        out.push({ key, why: "entries must be distinct absolute paths (/… or C:\\…)" });
      }
    } else if (key === "required_fields" || key.startsWith("required_fields.")) {
      if (key !== "required_fields" && key.slice("required_fields.".length).trim() === "") {
        out.push({ key, why: "names no type after required_fields." });
        continue;
      }
      const fields = items(value);
      if (fields.some((f) => f === "") || new Set(fields).size !== fields.length) {
        out.push({ key, why: "entries must be distinct non-empty field names" });
      }
    }
  }
  return out;
}
