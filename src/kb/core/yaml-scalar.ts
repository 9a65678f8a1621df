/**
 * Scalars of the flat YAML subset: parsing one value and formatting one value so that it
 * parses back to itself. Pure. Shared by frontmatter.ts (read/write) and hash.ts (canonical form).
 */
import type { FmScalar, FmValue } from "./types.js";

const INT = /^[-+]?[0-9]+$/;
const FLOAT = /^[-+]?(\.[0-9]+|[0-9]+\.[0-9]*|[0-9]+)([eE][-+]?[0-9]+)?$/;

/** A plain (unquoted) scalar as YAML 1.2 core schema reads it. */
export function plainScalar(raw: string): FmScalar {
  const s = raw.trim();
  if (s === "" || s === "~" || s === "null" || s === "Null" || s === "NULL") return null;
  if (s === "true" || s === "True" || s === "TRUE") return true;
  if (s === "false" || s === "False" || s === "FALSE") return false;
  if (INT.test(s) || FLOAT.test(s)) {
    const n = Number(s);
    if (Number.isFinite(n)) return n;
  }
  return s;
}

/** Reads a double-quoted scalar starting at `text[0] === '"'`; returns value and consumed length. */
export function readDoubleQuoted(text: string): { value: string; length: number } | null {
  let out = "";
  for (let i = 1; i < text.length; i++) {
    const c = text[i];
    if (c === '"') return { value: out, length: i + 1 };
    if (c === "\\") {
      const n = text[++i];
      const simple: Record<string, string> = {
        n: "\n",
        t: "\t",
        r: "\r",
        '"': '"',
        "\\": "\\",
        "/": "/",
        "0": "\0",
      };
      if (n !== undefined && simple[n] !== undefined) out += simple[n];
      else if (n === "u") {
        out += String.fromCharCode(Number.parseInt(text.slice(i + 1, i + 5), 16));
        i += 4;
      } else out += n ?? "";
    } else out += c;
  }
  return null;
}

/** Reads a single-quoted scalar (`''` escapes a quote). */
export function readSingleQuoted(text: string): { value: string; length: number } | null {
  let out = "";
  for (let i = 1; i < text.length; i++) {
    const c = text[i];
    if (c === "'") {
      if (text[i + 1] === "'") {
        out += "'";
        i++;
        continue;
      }
      return { value: out, length: i + 1 };
    }
    out += c;
  }
  return null;
}

const NEEDS_QUOTES = /^[\s\-?:,[\]{}#&*!|>'"%@`]|[:#]\s|\s#|\s$|:$|[\n\r\t"\\]|^$/;

/** Formats a scalar so that {@link plainScalar} (or the quoted readers) parse it back equal. */
export function formatScalar(value: FmScalar, inList = false): string {
  if (value === null) return "null";
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "number")
    return Number.isFinite(value) ? String(value) : JSON.stringify(String(value));
  const s = value;
  const reread = plainScalar(s);
  const listUnsafe = inList && /[,[\]{}#]/.test(s);
  if (reread !== s || NEEDS_QUOTES.test(s) || listUnsafe) return JSON.stringify(s);
  return s;
}

/** Formats a frontmatter value: scalars as above, lists as flow lists `[a, b]`. */
export function formatValue(value: FmValue): string {
  if (Array.isArray(value)) return `[${value.map((v) => formatScalar(v, true)).join(", ")}]`;
  return formatScalar(value);
}

/** Deep equality of two frontmatter values. */
export function sameValue(a: FmValue | undefined, b: FmValue | undefined): boolean {
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((v, i) => v === b[i]);
  return a === b;
}
