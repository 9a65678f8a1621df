/**
 * The two Go standard-library string rules the content hash depends on, reproduced exactly so
 * that our `if_match` equals the Go implementation's (design.md §4): `strconv.Quote` and
 * `strings.TrimSpace`. Pure.
 */

/** Go `strconv.IsPrint`: Unicode categories L, M, N, P, S, plus the ASCII space. */
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u;

function isPrint(ch: string, cp: number): boolean {
  return cp === 0x20 || PRINTABLE.test(ch);
}

const SHORT_ESCAPES: Record<number, string> = {
  7: "\\a",
  8: "\\b",
  12: "\\f",
  10: "\\n",
  13: "\\r",
  9: "\\t",
  11: "\\v",
};

function hex(n: number, width: number): string {
  return n.toString(16).padStart(width, "0");
}

/** One rune as `strconv.Quote` writes it inside double quotes. */
function quoteRune(ch: string, cp: number): string {
  if (ch === '"' || ch === "\\") return `\\${ch}`;
  if (isPrint(ch, cp)) return ch;
  const short = SHORT_ESCAPES[cp];
  if (short !== undefined) return short;
  if (cp < 0x20 || cp === 0x7f) return `\\x${hex(cp, 2)}`;
  // A lone UTF-16 surrogate is what Go sees as an invalid rune: written as U+FFFD.
  if (cp >= 0xd800 && cp <= 0xdfff) return "\\ufffd";
  if (cp < 0x10000) return `\\u${hex(cp, 4)}`;
  return `\\U${hex(cp, 8)}`;
}

/**
 * Go `strconv.Quote`: double quotes; `\"` and `\\`; printable runes as they are; `\a \b \f \n
 * \r \t \v`; other control characters as `\xNN`; other non-printable runes as `\uNNNN` or
 * `\UNNNNNNNN` (lower-case hex).
 */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) out += quoteRune(ch, ch.codePointAt(0) as number);
  return `${out}"`;
}

/** Go `unicode.IsSpace` (the White_Space property); differs from JS trim on U+0085 and U+FEFF. */
const GO_SPACE =
  "[\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]";
const LEADING_SPACE = new RegExp(`^${GO_SPACE}+`, "u");
const TRAILING_SPACE = new RegExp(`${GO_SPACE}+$`, "u");

/** Go `strings.TrimSpace`. */
export function goTrimSpace(s: string): string {
  return s.replace(LEADING_SPACE, "").replace(TRAILING_SPACE, "");
}
