/**
 * goUnquoteDouble is Go's `strconv.Unquote` for a double-quoted string: the content hash reads
 * quoted frontmatter values through it, as the Go implementation does. Expected values are what
 * Go's strconv answers for the same input (null: Go's ErrSyntax).
 */
import { describe, expect, it } from "vitest";
import { goUnquoteDouble } from "../../../src/kb/core/go-unquote.js";

describe("goUnquoteDouble (Go strconv.Unquote)", () => {
  it.each([
    ['"abc"', "abc"],
    ['""', ""],
    ['"a\\"b"', 'a"b'],
    ['"tab\\there"', "tab\there"],
    ['"\\a\\b\\f\\n\\r\\t\\v\\\\"', "\x07\b\f\n\r\t\v\\"],
    ['"caf\\u00e9"', "café"],
    ['"\\U0001F600"', "😀"],
    ['"\\x41\\101"', "AA"],
    ['"\\xc3\\xa9"', "é"],
    ['"naïve 日本"', "naïve 日本"],
  ])("%s → %j", (input, want) => {
    expect(goUnquoteDouble(input)).toBe(want);
  });

  it.each([
    '"a"b"', // a quote before the end
    '"a', // no closing quote
    '"\\q"', // unknown escape
    '"\\\'"', // \' is not an escape inside "…"
    '"\\ud800"', // a surrogate is not a rune
    '"\\U00110000"', // beyond U+10FFFF
    '"\\400"', // octal above 255
    '"\\x4"', // too few hex digits
    '"a\nb"', // a raw newline
    '"\\"', // the escaped quote leaves it unclosed
  ])("%j is a syntax error", (input) => {
    expect(goUnquoteDouble(input)).toBeNull();
  });
});
