import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { makeSnippet, SNIPPET_LENGTH } from "../../src/search/snippet.js";

/** True when the string has a lone surrogate (a pair cut in half). */
function hasLoneSurrogate(s: string): boolean {
  return /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(s);
}

describe("makeSnippet", () => {
  it("never cuts a surrogate pair in half, at either end", () => {
    const emoji = "🚀".repeat(300);
    expect(hasLoneSurrogate(makeSnippet(`a${emoji}`, ["zzz"]))).toBe(false);
    expect(hasLoneSurrogate(makeSnippet(`a${emoji}needle${emoji}`, ["needle"]))).toBe(false);
    expect(hasLoneSurrogate(makeSnippet(`${emoji}needle${emoji}`, ["needle"]))).toBe(false);
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom("a", " ", "🚀", "東", "é", "x"), {
          minLength: 150,
          maxLength: 600,
        }),
        fc.nat(600),
        (parts, at) => {
          // Inserted between two parts, so the input itself has whole pairs only.
          const cut = Math.min(at, parts.length);
          const withNeedle = [...parts.slice(0, cut), "needle", ...parts.slice(cut)].join("");
          expect(hasLoneSurrogate(makeSnippet(withNeedle, ["needle"]))).toBe(false);
        },
      ),
    );
  });

  it("centres on a match that differs from the term only by diacritics or case", () => {
    const filler = "lorem ipsum dolor sit amet ".repeat(20);
    const body = `${filler}the café on the corner ${filler}`;
    for (const term of ["cafe", "café", "CAFE"]) {
      const snippet = makeSnippet(body, [term.toLowerCase()]);
      expect(snippet, term).toContain("café on the corner");
      expect(snippet.startsWith("…"), term).toBe(true);
    }
  });

  it("keeps the match in view when lower-casing changes the length of earlier text", () => {
    // "İ" lower-cases to two UTF-16 units: an offset into the lower-cased text drifts.
    const body = `${"İ".repeat(150)} ${"filler ".repeat(20)}needle ${"tail ".repeat(40)}`;
    expect(makeSnippet(body, ["needle"])).toContain("needle");
  });

  it("stays about SNIPPET_LENGTH long with … marking each cut", () => {
    const body = `${"word ".repeat(100)}needle ${"word ".repeat(100)}`;
    const snippet = makeSnippet(body, ["needle"]);
    expect(snippet).toContain("needle");
    expect(snippet.length).toBeLessThanOrEqual(SNIPPET_LENGTH + 2);
    expect(snippet.startsWith("…") && snippet.endsWith("…")).toBe(true);
  });
});
