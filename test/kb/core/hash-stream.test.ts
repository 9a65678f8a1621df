/**
 * The streamed content hash equals contentHash on the whole text, however the text is cut into
 * pieces: the index hashes very large concepts with it (docs/search.md), and the `hash` that
 * concept_list answers from the index must be a valid `if_match`.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { contentHash } from "../../../src/kb/core/hash.js";
import { ContentHashStream, FrontmatterTooLongError } from "../../../src/kb/core/hash-stream.js";
import { GO_HASH_VECTORS, GO_LIST_ITEM_VECTORS } from "../../support/fixture.js";

const vectors = [GO_HASH_VECTORS, GO_LIST_ITEM_VECTORS].flatMap((path) =>
  (JSON.parse(readFileSync(path, "utf8")) as { vectors: Array<{ input: string }> }).vectors.map(
    (v) => v.input,
  ),
);

function streamed(pieces: string[]): string {
  const h = new ContentHashStream();
  for (const p of pieces) h.update(p);
  return h.digest();
}

/** Every cut of `text` into two pieces, plus one-character pieces. */
function cuts(text: string): string[][] {
  const out: string[][] = [[text], [...text]];
  for (let i = 0; i <= text.length; i++) out.push([text.slice(0, i), text.slice(i)]);
  return out;
}

const EDGES = [
  "",
  "\n",
  "\n\n\n",
  "---",
  "---\n",
  "---\n---",
  "---\n---\n",
  "---\na: b\n---",
  "---\na: b\n...\nbody",
  "\uFEFF---\ntype: x\n---\nbody\n",
  "---\r\ntype: x\r\n---\r\nline \r\r\n\tx\t\r\n\r\n\r\n",
  "no frontmatter \r\r\nline\r\n  \n\n",
  "---\ntype: x\nunclosed \r\r\nbody\r",
  "---  \ntype: x\ntimestamp: 2024\n---  \n\n\n  a  \n\n b\n \n\t\n",
  "body only\r",
  "---\ntype: x\n---\nlast line has cr\r",
  "a\r \nb \r\nc\r\r\r\n",
  "  ---\ntype: x\n---\nnot a block",
];

describe("ContentHashStream", () => {
  it("equals contentHash on every Go vector, whole and cut anywhere", () => {
    const wrong: string[] = [];
    for (const v of vectors) {
      const expected = contentHash(v);
      for (const pieces of [[v], [...v], [v.slice(0, v.length >> 1), v.slice(v.length >> 1)]])
        if (streamed(pieces) !== expected) wrong.push(JSON.stringify(pieces));
    }
    expect(wrong).toEqual([]);
  });

  it("equals contentHash on CR, BOM, blank-line and unclosed-block edge cases, cut anywhere", () => {
    const wrong: string[] = [];
    for (const text of EDGES) {
      const expected = contentHash(text);
      for (const pieces of cuts(text))
        if (streamed(pieces) !== expected) wrong.push(JSON.stringify(pieces));
    }
    expect(wrong).toEqual([]);
  });

  it("equals contentHash on lines longer than it keeps, trailing blanks cut between pieces", () => {
    const long = "x".repeat(70_000);
    const texts = [
      `---\ntype: x\n---\n${long} \t \r\r\n${long}\n \n`,
      `${long}   \r\n\n${" ".repeat(70_000)}y\n`,
      `${"a ".repeat(50_000)}\n\n`,
    ];
    for (const text of texts) {
      const expected = contentHash(text);
      for (const size of [1_000, 65_537, 100_000]) {
        const pieces: string[] = [];
        for (let i = 0; i < text.length; i += size) pieces.push(text.slice(i, i + size));
        expect(streamed(pieces)).toBe(expected);
      }
    }
  });

  it("refuses a frontmatter block longer than it keeps (the caller hashes the whole text)", () => {
    const h = new ContentHashStream();
    h.update("---\n");
    expect(() => {
      for (let i = 0; i < 30_000; i++) h.update(`key${i}: ${"v".repeat(40)}\n`);
    }).toThrow(FrontmatterTooLongError);
  });
});

describe("contentHash on long runs of blanks", () => {
  it("stays linear: 400,000 spaces before a character hash in well under a second", () => {
    // The regex it replaced (/[ \t]+$/) backtracked quadratically: ~1.6 s at 20,000 spaces.
    const text = `---\ntype: x\n---\n${" ".repeat(400_000)}x \n${"\t".repeat(400_000)}y\n`;
    const start = performance.now();
    const whole = contentHash(text);
    expect(performance.now() - start).toBeLessThan(1_000);
    expect(streamed([text])).toBe(whole);
  });
});
