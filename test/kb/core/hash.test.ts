import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bytesHash, contentHash } from "../../../src/kb/core/hash.js";

const key = fc.stringMatching(/^[a-z][a-z_]{0,8}$/).filter((k) => k !== "timestamp");
const scalar = fc.oneof(
  fc.stringMatching(/^[A-Za-z][A-Za-z0-9 ]{0,12}[A-Za-z0-9]$/),
  fc.integer({ min: 0, max: 9999 }),
  fc.boolean(),
  // Texts Go keeps as written and quotes by its own rule (go-content-hash vectors).
  fc.constantFrom(
    "1.0",
    "007",
    "~",
    "a:b",
    "x, y",
    "#hash",
    "-dash",
    "it's",
    "tab\there",
    "日本語",
  ),
);
const fmArb = fc.uniqueArray(fc.tuple(key, scalar), {
  minLength: 1,
  maxLength: 6,
  selector: (e) => e[0],
});
const bodyArb = fc
  .array(fc.stringMatching(/^[A-Za-z0-9 #*.-]{0,30}$/), { maxLength: 6 })
  .map((ls) => ls.map((l) => l.trimEnd()).join("\n"));

function doc(
  entries: Array<[string, string | number | boolean]>,
  body: string,
  extra: string[] = [],
): string {
  const lines = entries.map(
    ([k, v]) => `${k}: ${typeof v === "string" ? JSON.stringify(v) : String(v)}`,
  );
  return `---\n${[...extra, ...lines].join("\n")}\n---\n${body}\n`;
}

describe("contentHash", () => {
  it("ignores CRLF, trailing whitespace, key order, comments and timestamp lines", () => {
    fc.assert(
      fc.property(fmArb, bodyArb, fc.integer({ min: 0, max: 1000 }), (entries, body, seed) => {
        const base = contentHash(doc(entries, body));
        const reordered = [...entries].reverse();
        const variant = doc(reordered, body, [
          "# a comment",
          `timestamp: 2024-01-0${(seed % 9) + 1}T00:00:00Z`,
        ])
          .split("\n")
          .map((l, i) => (i % 2 === 0 ? `${l}  \t` : l))
          .join("\r\n");
        expect(contentHash(`${variant}\n\n`)).toBe(base);
      }),
    );
  });

  it("changes when the body or any other field changes", () => {
    fc.assert(
      fc.property(fmArb, bodyArb, fc.stringMatching(/^[a-z]{1,8}$/), (entries, body, word) => {
        const base = contentHash(doc(entries, body));
        expect(contentHash(doc(entries, `${body}\n${word}`))).not.toBe(base);
        const [k, v] = entries[0] as [string, string | number | boolean];
        const changed: Array<[string, string | number | boolean]> = [
          [k, `${String(v)}x`],
          ...entries.slice(1),
        ];
        expect(contentHash(doc(changed, body))).not.toBe(base);
      }),
    );
  });

  it("treats quoted and plain spellings alike: values are the text written (Go rule)", () => {
    expect(contentHash("---\ntitle: foo\n---\nx")).toBe(contentHash('---\ntitle: "foo"\n---\nx'));
    expect(contentHash('---\nv: "1"\n---\nx')).toBe(contentHash("---\nv: 1\n---\nx"));
    expect(contentHash("---\nv: 1.0\n---\nx")).not.toBe(contentHash("---\nv: 1\n---\nx"));
  });

  it("hashes a document without frontmatter as its normalized body", () => {
    expect(contentHash("# Log\r\n\r\n")).toBe(contentHash("# Log"));
  });

  it("bytesHash is the sha256 of raw bytes", () => {
    expect(bytesHash(new TextEncoder().encode("abc"))).toBe(
      "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    );
  });
});
