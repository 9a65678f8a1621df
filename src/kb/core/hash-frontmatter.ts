/**
 * The canonical frontmatter the content hash covers, read the way the Go implementation reads
 * it (Go v0.5.0 `internal/okf` ParseFrontmatter + CanonicalString; its 360 vectors in
 * test/fixtures/go-content-hash pin this down). Pure.
 *
 * This reading is deliberately lenient and separate from frontmatter-parse.ts: the hash must be
 * defined for every file (including frontmatter our strict parser refuses), and values are the
 * text written — `1.0`, `007`, `~`, `true` stay those strings, no YAML typing.
 *
 * Rules:
 * - blank lines and lines starting with `#` (after spaces) are skipped, and so is any other line
 *   without a `:`;
 * - otherwise the text before the first `:` is the key, the trimmed text after it the value;
 * - an empty value takes the `- item` lines right below it as a block list (the first line that
 *   is not `- …` ends it, a bare `-` too); with no such line the key is null (`key:`). A `- x`
 *   line anywhere else is an ordinary line: skipped, or a key `- x` when it holds a `:`;
 * - a value starting with `[` is a flow list up to its last `]`, split on `,` outside quotes;
 *   with no `]` at all the block does not parse and the hash covers its raw lines instead;
 * - items and scalars lose one pair of surrounding quotes: `'…'` as written, `"…"` through Go's
 *   `strconv.Unquote` (as written when that fails);
 * - a repeated key keeps its first position and takes its last value;
 * - canonical lines `key: value` sorted bytewise by key, lists as `[a, b]`, each scalar quoted
 *   by {@link formatGoScalar}; then every line starting with `timestamp:` is dropped.
 */
import { goQuote, goTrimSpace } from "./go-strconv.js";
import { goUnquoteDouble } from "./go-unquote.js";

type GoValue = string | null | string[];

/** Go's unquoteScalar: one pair of surrounding quotes goes; `"…"` is unescaped when valid. */
function unquote(s: string): string {
  if (s.length < 2) return s;
  const first = s[0];
  if (first !== '"' && first !== "'") return s;
  if (s[s.length - 1] !== first) return s;
  if (first === '"') return goUnquoteDouble(s) ?? s.slice(1, -1);
  return s.slice(1, -1);
}

/** Splits a flow list's inside on commas outside quotes (`\` escapes inside `"…"` only). */
function splitFlow(inner: string): string[] {
  const parts: string[] = [];
  let start = 0;
  let quote: string | null = null;
  let escaped = false;
  for (let i = 0; i < inner.length; i++) {
    const c = inner[i];
    if (quote !== null) {
      if (escaped) escaped = false;
      else if (c === "\\" && quote === '"') escaped = true;
      else if (c === quote) quote = null;
    } else if (c === '"' || c === "'") {
      quote = c;
    } else if (c === ",") {
      parts.push(inner.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(inner.slice(start));
  return parts;
}

/** A flow list's items, or null when its `]` is missing (Go: the block does not parse). */
function readFlowList(raw: string): string[] | null {
  const closing = raw.lastIndexOf("]");
  if (closing < 0) return null;
  const inner = raw.slice(1, closing);
  if (goTrimSpace(inner) === "") return [];
  return splitFlow(inner).map((item) => unquote(goTrimSpace(item)));
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

/** The `- item` lines right below line `at`, unquoted (none: an empty list). */
function blockItems(lines: string[], at: number): string[] {
  const items: string[] = [];
  for (let j = at + 1; j < lines.length; j++) {
    const next = goTrimSpace(lines[j] as string);
    if (!next.startsWith("- ")) break;
    items.push(unquote(goTrimSpace(next.slice(2))));
  }
  return items;
}

/**
 * Reads the lines between the `---` delimiters into keys in first-seen order and last values,
 * or null when a flow list has no `]` (the block then hashes as its raw lines, as in Go).
 */
function readEntries(lines: string[]): Map<string, GoValue> | null {
  const values = new Map<string, GoValue>();
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const trimmed = goTrimSpace(line);
    if (trimmed === "" || trimmed.startsWith("#")) continue;
    const colon = line.indexOf(":");
    if (colon < 0) continue;
    const key = goTrimSpace(line.slice(0, colon));
    const raw = goTrimSpace(line.slice(colon + 1));
    let value: GoValue;
    if (raw === "") {
      const items = blockItems(lines, i);
      i += items.length;
      value = items.length > 0 ? items : null;
    } else if (raw.startsWith("[")) {
      value = readFlowList(raw);
      if (value === null) return null;
    } else {
      value = unquote(raw);
    }
    // Map.set on an existing key keeps its insertion position: first position, last value.
    values.set(key, value);
  }
  return values;
}

const TIMESTAMP_LINE = /^[ \t]*timestamp:/;

/** The canonical frontmatter text (no trailing newline) of the lines between the delimiters. */
export function canonicalGoFrontmatter(lines: string[]): string {
  const read = readEntries(lines);
  if (read === null) return lines.filter((line) => !TIMESTAMP_LINE.test(line)).join("\n");
  const entries = [...read];
  // Bytewise order: UTF-16 code-unit comparison differs from UTF-8 bytes only above U+FFFF
  // against U+E000–U+FFFF; Buffer.compare is exact.
  entries.sort((a, b) => Buffer.compare(Buffer.from(a[0]), Buffer.from(b[0])));
  return entries
    .map(([key, value]) => canonicalLine(key, value))
    .filter((line) => !TIMESTAMP_LINE.test(line))
    .join("\n");
}
