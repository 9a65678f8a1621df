import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { makeSnippet } from "../../src/search/snippet.js";

/**
 * The snippet as computed before the ASCII fast path (whole body collapsed and folded), kept
 * here as the reference the fast path must equal character for character.
 */
function reference(body: string, terms: string[], length = 200): string {
  const LEAD = 60;
  const fold = (s: string) =>
    /[\u0080-\uffff]/.test(s)
      ? s.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase()
      : s.toLowerCase();
  const text = body.replace(/\s+/g, " ").trim();
  if (text.length <= length) return text;
  const folded = fold(text);
  let first = -1;
  for (const term of terms) {
    const needle = fold(term);
    const at = needle === "" ? -1 : folded.indexOf(needle);
    if (at >= 0 && (first < 0 || at < first)) first = at;
  }
  // ASCII-only bodies in this test: folding keeps offsets.
  let start = first <= LEAD ? 0 : first - LEAD;
  if (start > 0) {
    const space = text.indexOf(" ", start);
    if (space >= 0 && space < (first < 0 ? start + 20 : first)) start = space + 1;
  }
  let end = Math.min(text.length, start + length);
  if (end < text.length) {
    const space = text.lastIndexOf(" ", end);
    if (space > start + length / 2) end = space;
  }
  return `${start > 0 ? "…" : ""}${text.slice(start, end)}${end < text.length ? "…" : ""}`;
}

describe("makeSnippet on ASCII bodies (opening-only path)", () => {
  it("equals the whole-body snippet for any ASCII body, whitespace runs and term position", () => {
    const piece = fc.constantFrom(
      "a",
      "B",
      " ",
      "  ",
      "\n",
      "\t\n ",
      "gate",
      "Gateway",
      "way",
      "x",
      "-",
      ".",
    );
    fc.assert(
      fc.property(
        fc.array(piece, { minLength: 0, maxLength: 900 }),
        fc.array(fc.constantFrom("gateway", "gate", "way", "b", "zzz", "a-b", ""), {
          minLength: 1,
          maxLength: 3,
        }),
        fc.integer({ min: 20, max: 300 }),
        (parts, terms, length) => {
          const body = parts.join("");
          expect(makeSnippet(body, terms, length)).toBe(reference(body, terms, length));
        },
      ),
      { numRuns: 3000 },
    );
  });

  it("finds a match far into a long body, after whitespace runs that shrink when collapsed", () => {
    const body = `${"word \n\n\t   ".repeat(400)}the Gateway forwards${" more text".repeat(100)}`;
    expect(makeSnippet(body, ["gateway"])).toBe(reference(body, ["gateway"]));
    expect(makeSnippet(body, ["gateway"])).toContain("Gateway forwards");
    const spaced = `${"x".repeat(300)}${" ".repeat(5000)}tail`;
    expect(makeSnippet(spaced, ["zzz"])).toBe(reference(spaced, ["zzz"]));
    // Leading whitespace is trimmed before offsets count.
    const lead = `   ${"x".repeat(100)}gateway${" y".repeat(200)}`;
    expect(makeSnippet(lead, ["gateway"])).toBe(reference(lead, ["gateway"]));
    // The text after the match is mostly whitespace: its opening is too short, the whole is read.
    const thin = `${"a ".repeat(100)}gateway${" \n".repeat(200)}end`;
    expect(makeSnippet(thin, ["gateway"])).toBe(reference(thin, ["gateway"]));
    expect(makeSnippet(thin, ["gateway"]).endsWith("gateway end")).toBe(true);
  });

  it("collapses every kind of whitespace run as /\\s+/ does (single spaces kept, others replaced)", () => {
    // Unicode spaces send a body down the whole-body path; folding keeps their offsets.
    const piece = fc.constantFrom(
      "w",
      "Gateway",
      " ",
      "  ",
      "\r\n",
      "\v",
      "\f",
      "\u00a0",
      "\u2028",
      "\u3000",
      " \u00a0 ",
      "\ufeff",
    );
    fc.assert(
      fc.property(
        fc.array(piece, { minLength: 0, maxLength: 400 }),
        fc.integer({ min: 20, max: 250 }),
        (parts, length) => {
          const body = parts.join("");
          expect(makeSnippet(body, ["gateway"], length)).toBe(reference(body, ["gateway"], length));
        },
      ),
      { numRuns: 1500 },
    );
  });
});
