/**
 * Our content hash equals the Go implementation's on every vector it computed: the
 * `if_match` a Go-written KB hands out must be accepted here, and the other way round.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { goQuote, goTrimSpace } from "../../../src/kb/core/go-strconv.js";
import { contentHash } from "../../../src/kb/core/hash.js";
import { formatGoScalar } from "../../../src/kb/core/hash-frontmatter.js";
import { GO_HASH_VECTORS, GO_LIST_ITEM_VECTORS } from "../../support/fixture.js";

interface Vector {
  input: string;
  sha256: string;
}

function sha256Hex(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

function readVectors(path: string): Vector[] {
  return (JSON.parse(readFileSync(path, "utf8")) as { vectors: Vector[] }).vectors;
}

const vectors = readVectors(GO_HASH_VECTORS);
const listItemVectors = readVectors(GO_LIST_ITEM_VECTORS);

describe("content hash: the Go vectors", () => {
  it("has all 300 vectors to check", () => {
    expect(vectors.length).toBe(300);
  });

  it("hashes every vector as Go did", () => {
    const wrong = vectors.filter((v) => contentHash(v.input) !== v.sha256).map((v) => v.input);
    expect(wrong).toEqual([]);
  });
});

describe("content hash: the Go vectors for empty list items", () => {
  it("has all 60 vectors to check", () => {
    expect(listItemVectors.length).toBe(60);
  });

  it("hashes every vector as Go did", () => {
    const wrong = listItemVectors
      .filter((v) => contentHash(v.input) !== v.sha256)
      .map((v) => v.input);
    expect(wrong).toEqual([]);
  });

  const h = (fm: string) => contentHash(`---\n${fm}\n---\nbody\n`);

  it("takes only the `- x` lines right below `key:` as its block list (Go's ParseFrontmatter)", () => {
    expect(h("tags:\n  - a\n  -\n  - b")).toBe(h("tags: [a]"));
    expect(h("tags:\n  - a\n  -   \n  - b")).toBe(h("tags: [a]"));
    expect(h("tags:\n  -\n  - b")).toBe(h("tags:"));
    expect(h("tags:\n\n  - b")).toBe(h("tags:"));
    expect(h("title: a\n  - b")).toBe(h("title: a"));
    expect(h("tags: [a, , b]")).not.toBe(h("tags: [a, b]"));
  });

  it("reads a stray `- x` holding a colon as a key, as Go does", () => {
    expect(h("tags:\n  -\n  - http://h")).toBe(sha256Hex("---\n- http: //h\ntags:\n---\nbody"));
  });
});

describe("content hash: Go's flow lists and quoted values", () => {
  const h = (fm: string) => contentHash(`---\n${fm}\n---\nbody\n`);

  it("reads a flow list up to its last `]`", () => {
    expect(h("tags: [a, b] trailing")).toBe(h("tags: [a, b]"));
  });

  it("hashes the raw lines of a block whose flow list has no `]`", () => {
    expect(contentHash("---\nb: [x\na: 1\n---\nbody\n")).toBe(
      sha256Hex("---\nb: [x\na: 1\n---\nbody"),
    );
  });

  it("unquotes double-quoted values with strconv.Unquote", () => {
    expect(h('v: "a\\"b"')).toBe(h(`v: 'a"b'`));
    expect(h('v: "caf\\u00e9 \\x41"')).toBe(h("v: café A"));
    expect(h('tags: ["x\\", y", z]')).toBe(h(`tags: ['x", y', z]`));
    // Not valid for Go's Unquote: the quotes go, the text stays as written.
    expect(h('v: "a\\qb"')).toBe(h("v: 'a\\qb'"));
  });
});

describe("content hash: values are the text written (Go)", () => {
  const h = (fm: string) => contentHash(`---\n${fm}\n---\nbody\n`);

  it("keeps number-, boolean- and null-looking values as text", () => {
    expect(h("v: 1.0")).not.toBe(h("v: 1"));
    expect(h("v: 007")).not.toBe(h("v: 7"));
    expect(h("v: ~")).not.toBe(h("v: null"));
    expect(h("v: true")).not.toBe(h("v: True"));
    expect(h('v: "1"')).toBe(h("v: 1"));
  });

  it("keeps a repeated key once: first position, last value", () => {
    expect(h("b: 1\na: x\nb: 2")).toBe(h("a: x\nb: 2"));
  });

  it("drops comments, blank lines and timestamp but not a key that merely starts with it", () => {
    expect(h("# c\n\na: x\ntimestamp: 2024-01-01")).toBe(h("a: x"));
    expect(h("a: x\ntimestamps: 1")).not.toBe(h("a: x"));
  });

  it("reads block and flow lists alike", () => {
    expect(h("tags:\n  - a\n  - 'b'")).toBe(h("tags: [a, b]"));
  });

  it("hashes frontmatter our strict parser refuses", () => {
    expect(h("owner: a: b")).toBe(h('owner: "a: b"'));
    expect(h("s: {brace}")).toBe(h('s: "{brace}"'));
  });
});

describe("Go quoting rules", () => {
  it("quotes empty, special-character and space/dash-edged scalars only", () => {
    expect(formatGoScalar("")).toBe('""');
    expect(formatGoScalar("plain value")).toBe("plain value");
    expect(formatGoScalar("a:b")).toBe('"a:b"');
    expect(formatGoScalar("x,y")).toBe('"x,y"');
    expect(formatGoScalar("-dash")).toBe('"-dash"');
    expect(formatGoScalar(" lead")).toBe('" lead"');
    expect(formatGoScalar("trail ")).toBe('"trail "');
    expect(formatGoScalar("it's")).toBe("it's");
    expect(formatGoScalar("日本語")).toBe("日本語");
  });

  it("escapes as strconv.Quote does", () => {
    expect(goQuote('say "hi" \\ now')).toBe('"say \\"hi\\" \\\\ now"');
    expect(goQuote("\x07\b\f\n\r\t\v")).toBe('"\\a\\b\\f\\n\\r\\t\\v"');
    expect(goQuote("\x00\x01\x1f\x7f")).toBe('"\\x00\\x01\\x1f\\x7f"');
    // Non-printable beyond ASCII: no-break space, zero-width space, line separator, a tag char.
    expect(goQuote("\u00a0\u200b\u2028")).toBe('"\\u00a0\\u200b\\u2028"');
    expect(goQuote("\u{e0001}")).toBe('"\\U000e0001"');
    // Printable stays literal: letters, marks, symbols, emoji.
    expect(goQuote("café e\u0301 € 😀 日本")).toBe('"café e\u0301 € 😀 日本"');
    expect(goQuote("\ud800")).toBe('"\\ufffd"');
  });

  it("trims the white space Go trims", () => {
    expect(goTrimSpace("\u0085 x \u3000")).toBe("x");
    expect(goTrimSpace("\ufeffx")).toBe("\ufeffx");
  });
});
