import { afterEach, describe, expect, it } from "vitest";
import { VISIBLE_ALL, type Visibility } from "../../src/kb/core/types.js";
import { openSearchIndex, type SqliteSearchIndex } from "../../src/search/sqlite-index.js";
import { MAX_SUBSTRING_QUERY_CHARS } from "../../src/search/substring-fallback.js";
import {
  boundedBody,
  MAX_INDEXED_BODY_CHARS,
  SNIPPET_WINDOW_CHARS,
} from "../../src/search/text-bounds.js";
import { doc } from "./docs.js";

let index: SqliteSearchIndex;
afterEach(() => index?.close());

function open(docs: ReturnType<typeof doc>[]): SqliteSearchIndex {
  index = openSearchIndex(":memory:");
  index.reconcile(docs);
  return index;
}

const q = (
  query: string,
  extra: { limit?: number; visibility?: Visibility; scope?: string } = {},
) => index.search({ query, limit: 10, visibility: VISIBLE_ALL, ...extra });
const ids = (query: string, extra = {}) => q(query, extra).results.map((h) => h.id);
const note = (title: string, type = "note") => ({ type, title });

describe("the substring fallback is served from the index", () => {
  it("finds CJK runs, fragments inside words and folded text, case-insensitively", () => {
    open([
      doc("travel/tokyo", { frontmatter: note("Tokyo"), body: "東京タワーは観光地です。" }),
      doc("ops/backup", { frontmatter: note("Backups"), body: "Nightly SNAPSHOTS of volumes." }),
      doc("food/cafe", { frontmatter: note("Crème brûlée"), body: "Le CAFÉ du coin, très bon." }),
    ]);
    expect(q("タワー")).toMatchObject({ match: "substring", results: [{ id: "travel/tokyo" }] });
    expect(q("京タ").results[0]?.snippet).toContain("東京タワー");
    expect(ids("NAPSHOT")).toEqual(["ops/backup"]);
    expect(ids("afe du")).toEqual(["food/cafe"]);
    expect(ids("ème BRÛ")).toEqual(["food/cafe"]); // the title, folded
    expect(ids("rème brul")).toEqual(["food/cafe"]);
    expect(q("zzqx")).toEqual({ results: [], match: "none" });
  });

  it("narrows by the vocabulary without losing matches across words, marks or removals", () => {
    open([
      doc("a/cafe", { body: "Le café du coin" }),
      doc("a/book", { frontmatter: note("पुस्तक"), body: "यह किताब अच्छी है" }),
      doc("a/gone", { body: "uniqueqzword here" }),
    ]);
    expect(ids("afé du co")).toEqual(["a/cafe"]); // three parts, each inside a token
    // Marks are folded away on both sides (as the old file scan did), in the word index too.
    expect(ids("कताब")).toEqual(["a/book"]);
    expect(q("किताब")).toMatchObject({ match: "all_terms", results: [{ id: "a/book" }] });
    index.remove("a/gone"); // its tokens stay in the vocabulary: a candidate LIKE rejects
    expect(ids("iqueqzwor")).toEqual([]);
    expect(ids("qzwordx")).toEqual([]); // no token contains it: answered without a scan
  });

  it("keeps Hangul syllables whole: a word prefix never ends inside a syllable", () => {
    open([doc("k/seoul", { body: "서울특별시" }), doc("k/lake", { body: "석촌호수" })]);
    expect(ids("서울")).toEqual(["k/seoul"]);
    expect(ids("울특")).toEqual(["k/seoul"]); // substring inside the token
    // 서 is how 석 starts once decomposed to jamo; as a syllable it is not.
    expect(ids("서")).toEqual(["k/seoul"]);
    expect(ids("촌호")).toEqual(["k/lake"]);
  });

  it("treats LIKE wildcards in the query as plain text", () => {
    open([
      doc("a/percent", { body: "Disk is at 10x0%z today." }),
      doc("a/plain", { body: "Disk is at 10x05z today." }),
      doc("a/under", { body: "name me_10x0 here" }),
    ]);
    expect(q("0x0%")).toMatchObject({ match: "substring", results: [{ id: "a/percent" }] });
    expect(ids("0x0%")).toEqual(["a/percent"]);
    expect(ids("e_10x")).toEqual(["a/under"]);
    expect(ids("x0_")).toEqual([]);
  });

  it("skips queries too long to be a fragment instead of failing (SQLite caps LIKE patterns)", () => {
    open([doc("a/long", { body: "ab".repeat(40_000) })]);
    expect(q("ba".repeat(MAX_SUBSTRING_QUERY_CHARS / 2))).toMatchObject({ match: "substring" });
    expect(q("ba".repeat(30_000))).toEqual({ results: [], match: "none" });
  });

  it("ranks title matches first, then by id, and applies visibility and scope before the limit", () => {
    // One character: too short for the title trigram index, and inside a word-index token.
    open([
      doc("aa/body-only", { frontmatter: note("First"), body: "東京の話" }),
      doc("bb/titled", { frontmatter: note("東京ガイド"), body: "nothing" }),
      doc("cc/other", { frontmatter: note("Other"), body: "また東京" }),
    ]);
    expect(q("京").match).toBe("substring");
    expect(ids("京")).toEqual(["bb/titled", "aa/body-only", "cc/other"]);
    const onlyCc: Visibility = { all: false, rules: [{ maps: ["cc"], journals: [], types: [] }] };
    // The two hidden concepts rank first; the limit of 1 still finds the visible one.
    expect(ids("京", { visibility: onlyCc, limit: 1 })).toEqual(["cc/other"]);
    expect(ids("京", { scope: "aa" })).toEqual(["aa/body-only"]);
  });
});

describe("per-concept caps bound what is indexed and returned", () => {
  it("indexes only the first MAX_INDEXED_BODY_CHARS of a huge body", () => {
    const head = "qqhead ".repeat(10);
    const deep = `${"filler ".repeat(100_000)}deepmarker${"z".repeat(5)} `;
    const pad = "y".repeat(MAX_INDEXED_BODY_CHARS);
    open([doc("big/log", { body: `${head}${deep}${pad}tailmarker tail` })]);
    expect(deep.length + head.length).toBeLessThan(MAX_INDEXED_BODY_CHARS);
    // A word and a fragment inside the cap are found; the snippet window sits on the match.
    const hit = q("pmarkerzz").results[0];
    expect(hit?.id).toBe("big/log");
    expect(hit?.snippet).toContain("deepmarkerzzzzz");
    expect(hit?.snippet.length).toBeLessThanOrEqual(205);
    expect(q("deepmarkerzzzzz").results[0]?.snippet).toBeTruthy();
    // Beyond the cap: neither the word index nor the substring fallback sees the text.
    expect(q("tailmarker")).toEqual({ results: [], match: "none" });
    expect(q("ailmarke")).toEqual({ results: [], match: "none" });
  });

  it("cuts word-hit snippets from a bounded window of the body", () => {
    const far = `${"word ".repeat(SNIPPET_WINDOW_CHARS)}farword here`;
    open([doc("big/far", { body: far })]);
    const hit = q("farword").results[0];
    expect(hit?.id).toBe("big/far");
    // Past the window the snippet is the opening of the body, still about 200 characters.
    expect(hit?.snippet.length).toBeLessThanOrEqual(205);
  });

  it("never splits a surrogate pair at the cap", () => {
    const body = `${"a".repeat(MAX_INDEXED_BODY_CHARS - 1)}😀tail`;
    const kept = boundedBody(body);
    expect(kept).toBe("a".repeat(MAX_INDEXED_BODY_CHARS - 1));
    expect(boundedBody("short 😀")).toBe("short 😀");
  });
});

describe("the vocabulary after a rolled-back write", () => {
  it("forgets terms whose insert was rolled back, so they are recorded again", () => {
    open([doc("a/one", { body: "plain words" })]);
    expect(() =>
      index.transaction(() => {
        index.upsert(doc("a/two", { body: "rolledbackterm here" }));
        throw new Error("abort the batch");
      }),
    ).toThrow("abort the batch");
    index.upsert(doc("a/three", { body: "the rolledbackterm again" }));
    expect(ids("olledbackter")).toEqual(["a/three"]);
  });
});
