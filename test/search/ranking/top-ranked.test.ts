/**
 * Search ranks from each ranker's top rows (top-ranked.ts) and must answer exactly
 * what ranking every match answered: best first, equal scores by id — also when the limit
 * cuts a run of equal scores, and when that run is longer than the ranker's window.
 */
import { afterEach, describe, expect, it } from "vitest";
import { VISIBLE_ALL } from "../../../src/kb/core/types.js";
import { openSearchIndex, type SqliteSearchIndex } from "../../../src/search/sqlite-index.js";
import { doc } from "../docs.js";

let index: SqliteSearchIndex;
afterEach(() => index?.close());

/** `n` concepts of identical text (equal scores), inserted in reverse id order. */
function twins(n: number, prefix: string) {
  return Array.from({ length: n }, (_, i) =>
    doc(`${prefix}/t${String(n - 1 - i).padStart(3, "0")}`, {
      frontmatter: { type: "note", title: "Twin" },
      body: "the gateway forwards packets",
    }),
  );
}

const search = (query: string, limit: number) =>
  index.search({ query, limit, visibility: VISIBLE_ALL }).results.map((h) => h.id);

describe("ranking from each ranker's top rows", () => {
  it.each([
    ["inside the window", 20],
    ["longer than the window", 90],
  ])("a cut through equal scores keeps the id order (run %s)", (_how, n) => {
    index = openSearchIndex(":memory:");
    const strong = doc("ops/best", {
      frontmatter: { type: "note", title: "Gateway" },
      body: "gateway gateway",
    });
    index.reconcile([...twins(n, "ops"), strong]);
    const expected = ["ops/best", ...Array.from({ length: 6 }, (_, i) => `ops/t00${i}`)];
    expect(search("gateway", 7)).toEqual(expected);
    expect(search("gateway", 1)).toEqual(["ops/best"]);
  });

  it("merges word and trigram hits by their best score, ties by id", () => {
    index = openSearchIndex(":memory:");
    index.reconcile([
      ...twins(12, "ops"),
      // Only a substring of the id and title matches (trigram ranker alone).
      doc("ops/mygatewayx", { frontmatter: { type: "note", title: "Mygatewayx" }, body: "x" }),
    ]);
    const hits = search("gateway", 20);
    expect(hits).toHaveLength(13);
    expect(hits).toContain("ops/mygatewayx");
    const twinsOnly = hits.filter((id) => id !== "ops/mygatewayx");
    expect(twinsOnly).toEqual([...twinsOnly].sort());
    // Each prefix of the answer is the answer to the smaller limit.
    for (const limit of [1, 3, 5, 12])
      expect(search("gateway", limit)).toEqual(hits.slice(0, limit));
  });
});
