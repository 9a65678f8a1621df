/**
 * contentHash's fast paths (the split stops at the closing `---`, the per-line blank
 * strip and the CRLF replacement are skipped when nothing needs them) hash exactly what the
 * straightforward form hashes, on texts made of the characters those paths look at.
 */
import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { contentHash, trimBlanksEnd } from "../../../src/kb/core/hash.js";
import { canonicalGoFrontmatter } from "../../../src/kb/core/hash-frontmatter.js";

/** The form before the fast paths: split everything, strip every line. */
function reference(text: string): string {
  const sha = (s: string) => createHash("sha256").update(s).digest("hex");
  const strip = (s: string) => s.split("\n").map(trimBlanksEnd).join("\n").replace(/\n+$/, "");
  const lf = (s: string) => s.replace(/\r\n/g, "\n");
  const t = lf(text.replace(/^\uFEFF/, ""));
  const lines = t.split("\n");
  if ((lines[0] ?? "").trimEnd() === "---") {
    for (let i = 1; i < lines.length; i++) {
      const l = (lines[i] as string).trimEnd();
      if (l === "---" || l === "...") {
        const fm = strip(canonicalGoFrontmatter(lines.slice(1, i)));
        return sha(`---\n${fm}\n---\n${strip(lf(lines.slice(i + 1).join("\n")))}`);
      }
    }
  }
  return sha(strip(t));
}

const piece = fc.constantFrom(
  "---",
  "...",
  "a: b",
  "x",
  " ",
  "\t",
  "\r",
  "\n",
  "\r\n",
  "\uFEFF",
  "é",
);

describe("contentHash fast paths", () => {
  it("hash what splitting and stripping everything hashes", () => {
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }), (parts) => {
        const text = parts.join("");
        expect(contentHash(text)).toBe(reference(text));
        expect(contentHash(`---\n${text}`)).toBe(reference(`---\n${text}`));
      }),
      { numRuns: 2000 },
    );
  });
});
