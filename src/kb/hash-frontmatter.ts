/**
 * The canonical frontmatter the content hash covers, read the way the Go implementation reads
 * it (its 360 vectors in test/fixtures/go-content-hash pin this down). Pure.
 *
 * This reading is deliberately lenient and separate from frontmatter-parse.ts: the hash must be
 * defined for every file (including frontmatter our strict parser refuses), and values are the
 * text written — `1.0`, `007`, `~`, `true` stay those strings, no YAML typing.
 *
 * Rules (Go v0.5.0 `internal/okf`):
 * - blank lines and lines starting with `#` (after spaces) are skipped;
 * - `- item` (after spaces) appends an item to the list of the last key; a bare `-` (nothing
 *   but blanks after the dash) adds nothing and ends that list, so later items are dropped;
 * - otherwise the text before the first `:` is the key, the trimmed text after it the value;
 *   a line without `:` is skipped; an empty value starts a (block) list, `key:` alone is null;
 * - `[ ... ]` is a flow list split on `,` outside quotes; items and scalars lose one pair of
 *   surrounding `"…"` or `'…'` (no escape processing);
 * - a repeated key keeps its first position and takes its last value;
 * - canonical lines `key: value` sorted bytewise by key, lists as `[a, b]`, each scalar quoted
 *   by {@link formatGoScalar}; then every line starting with `timestamp:` is dropped.
 */
import { goQuote, goTrimSpace } from "./go-strconv.js";

type GoValue = string | null | string[];

/** Removes one pair of matching surrounding quotes; the text inside stays as written. */
function unquote(s: string): string {
  if (s.length >= 2 && (s[0] === '"' || s[0] === "'") && s[s.length - 1] === s[0]) {
    return s.slice(1, -1);
  }
  return s;
}

/** Splits a flow list's inside on commas that are not inside a quote (any `'`/`"` opens one). */
function splitFlow(inner: string): string[] {
  const parts: string[] = [];
  let current = "";
  let quote: string | null = null;
  for (const c of inner) {
    if (quote !== null) {
      if (c === quote) quote = null;
    } else if (c === '"' || c === "'") {
      quote = c;
    } else if (c === ",") {
      parts.push(current);
      current = "";
      continue;
    }
    current += c;
  }
  parts.push(current);
  return parts;
}

function readValue(raw: string): GoValue {
  if (raw === "") return null;
  if (raw.startsWith("[") && raw.endsWith("]")) {
    const inner = raw.slice(1, -1);
    if (goTrimSpace(inner) === "") return [];
    return splitFlow(inner).map((item) => unquote(goTrimSpace(item)));
  }
  return unquote(raw);
}

const NEEDS_QUOTES = /[:,[\]{}#\n\r\t\\"]/;

/** Go's scalar rule: quoted (strconv.Quote) when empty, holding a special, or space/dash-edged. */
export function formatGoScalar(s: string): string {
  const quote =
    s === "" || NEEDS_QUOTES.test(s) || s.startsWith("-") || s.startsWith(" ") || s.endsWith(" ");
  return quote ? goQuote(s) : s;
}

function canonicalLine(key: string, v: GoValue): string {
  if (v === null) return `${key}:`;
  if (Array.isArray(v)) return `${key}: [${v.map(formatGoScalar).join(", ")}]`;
  return `${key}: ${formatGoScalar(v)}`;
}

/** Reads the lines between the `---` delimiters into keys in first-seen order and last values. */
function readEntries(lines: string[]): Map<string, GoValue> {
  const values = new Map<string, GoValue>();
  let lastKey: string | null = null;
  for (const line of lines) {
    const trimmed = goTrimSpace(line);
    if (trimmed === "" || trimmed.startsWith("#")) continue;
    if (trimmed === "-") {
      // An item with nothing after the dash is no item and ends the list: later `- x` lines
      // belong to no key (Go's reading, pinned by
      // vectors-list-items.json; docs/decisions.md, "A bare `-` list item").
      lastKey = null;
      continue;
    }
    if (trimmed.startsWith("- ")) {
      if (lastKey === null) continue;
      const current = values.get(lastKey);
      const list = Array.isArray(current) ? current : [];
      list.push(unquote(goTrimSpace(trimmed.slice(1))));
      values.set(lastKey, list);
      continue;
    }
    const colon = line.indexOf(":");
    if (colon < 0) continue;
    lastKey = goTrimSpace(line.slice(0, colon));
    // Map.set on an existing key keeps its insertion position: first position, last value.
    values.set(lastKey, readValue(goTrimSpace(line.slice(colon + 1))));
  }
  return values;
}

const TIMESTAMP_LINE = /^[ \t]*timestamp:/;

/** The canonical frontmatter text (no trailing newline) of the lines between the delimiters. */
export function canonicalGoFrontmatter(lines: string[]): string {
  const entries = [...readEntries(lines)];
  // Bytewise order: UTF-16 code-unit comparison differs from UTF-8 bytes only above U+FFFF
  // against U+E000–U+FFFF; Buffer.compare is exact.
  entries.sort((a, b) => Buffer.compare(Buffer.from(a[0]), Buffer.from(b[0])));
  return entries
    .map(([key, value]) => canonicalLine(key, value))
    .filter((line) => !TIMESTAMP_LINE.test(line))
    .join("\n");
}
