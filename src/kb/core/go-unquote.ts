/**
 * Go `strconv.Unquote` for a double-quoted string, reproduced so that the content hash reads a
 * quoted frontmatter value exactly as the Go implementation does (design.md §4). Pure.
 *
 * Escapes `\a \b \f \n \r \t \v \\ \"`, `\xNN`, `\NNN` (octal), `\uNNNN`, `\UNNNNNNNN`; an unknown
 * escape, `\'`, a raw newline, a quote before the end or a missing closing quote is a syntax
 * error (null). `\x`/octal escapes are bytes: bytes that do not form UTF-8 cannot be a JS string
 * and decode as U+FFFD (Go would keep the raw byte; no real frontmatter writes such escapes).
 */

const SIMPLE_ESCAPES: Record<string, number> = {
  a: 7,
  b: 8,
  f: 12,
  n: 10,
  r: 13,
  t: 9,
  v: 11,
  "\\": 92,
  '"': 34,
};

const HEX_WIDTH: Record<string, number> = { x: 2, u: 4, U: 8 };

const HEX = /^[0-9a-fA-F]+$/;
const OCTAL = /^[0-7]{3}$/;

interface Decoded {
  /** UTF-8 bytes of the character, or one raw byte for `\x`/octal escapes. */
  bytes: number[];
  next: number;
}

function utf8Bytes(cp: number): number[] {
  return [...Buffer.from(String.fromCodePoint(cp), "utf8")];
}

/** Go `strconv.UnquoteChar` on the escape starting at `s[i]` (a backslash); null on error. */
function decodeEscape(s: string, i: number): Decoded | null {
  const c = s[i + 1];
  if (c === undefined) return null;
  const simple = SIMPLE_ESCAPES[c];
  if (simple !== undefined) return { bytes: [simple], next: i + 2 };
  const width = HEX_WIDTH[c];
  if (width !== undefined) {
    const digits = s.slice(i + 2, i + 2 + width);
    if (digits.length < width || !HEX.test(digits)) return null;
    const v = Number.parseInt(digits, 16);
    if (c === "x") return { bytes: [v], next: i + 2 + width };
    // Go's utf8.ValidRune: in range and not a surrogate.
    if (v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff)) return null;
    return { bytes: utf8Bytes(v), next: i + 2 + width };
  }
  const octal = s.slice(i + 1, i + 4);
  if (OCTAL.test(octal)) {
    const v = Number.parseInt(octal, 8);
    return v > 255 ? null : { bytes: [v], next: i + 4 };
  }
  return null;
}

/** Go `strconv.Unquote(s)` where `s` starts with `"`: the text, or null for a syntax error. */
export function goUnquoteDouble(s: string): string | null {
  const end = s.indexOf('"', 1);
  if (s[0] !== '"' || end < 0) return null;
  const head = s.slice(0, end + 1);
  if (!head.includes("\\") && !head.includes("\n"))
    return end === s.length - 1 ? s.slice(1, end) : null;
  const bytes: number[] = [];
  let i = 1;
  while (i < s.length && s[i] !== '"') {
    if (s[i] === "\n") return null;
    if (s[i] === "\\") {
      const decoded = decodeEscape(s, i);
      if (decoded === null) return null;
      bytes.push(...decoded.bytes);
      i = decoded.next;
      continue;
    }
    const cp = s.codePointAt(i) as number;
    bytes.push(...utf8Bytes(cp));
    i += cp > 0xffff ? 2 : 1;
  }
  if (i !== s.length - 1) return null;
  return Buffer.from(bytes).toString("utf8");
}
