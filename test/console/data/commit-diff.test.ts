/**
 * One commit's diff per viewer: the diff holds only visible files; an unknown, malformed, foreign
 * or wholly hidden sha answers the same null (one 404 for all).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commitDiff } from "../../../src/console/data/commit-diff.js";
import { readFeed } from "../../../src/console/data/feed.js";
import { LOCAL_ADMIN } from "../../../src/mcp/context.js";
import { git } from "../../support/kb.js";
import { type GovKb, govKb, HIDDEN_WORDS, NARROW } from "./gov-kb.js";

let kb: GovKb;
let shas: Record<string, string>;
beforeAll(async () => {
  kb = await govKb();
  const page = await readFeed(kb.root, kb.scopeOf(LOCAL_ADMIN), { filter: {}, cursor: 0 });
  shas = Object.fromEntries(page.commits.map((c) => [c.subject, c.sha]));
}, 60_000);
afterAll(async () => kb?.cleanup());

const sha = (subject: string) => shas[subject] as string;

describe("commitDiff", () => {
  it("shows a whole-KB reader every file of the commit", async () => {
    const d = await commitDiff(
      kb.root,
      kb.scopeOf(LOCAL_ADMIN),
      sha("concept_batch: alpha/mixed-visible and 1 more"),
    );
    expect(d?.patch).toContain("+++ b/data/alpha/mixed-visible.md");
    expect(d?.patch).toContain("+++ b/data/beta/secret-y.md");
  });

  it("shows a narrow viewer only the visible part of a mixed commit", async () => {
    const d = await commitDiff(
      kb.root,
      kb.scopeOf(NARROW),
      sha("concept_batch: alpha/mixed-visible and 1 more"),
    );
    expect(d?.commit.subject).toBe("concept_batch: alpha/mixed-visible");
    expect(d?.patch).toContain("+++ b/data/alpha/mixed-visible.md");
    for (const word of HIDDEN_WORDS) expect(JSON.stringify(d)).not.toContain(word);
  });

  it("answers null alike for a hidden, unknown, malformed or unreachable sha", async () => {
    const narrow = kb.scopeOf(NARROW);
    const hidden = sha("concept_write: beta/secret-x");
    expect(await commitDiff(kb.root, kb.scopeOf(LOCAL_ADMIN), hidden)).not.toBeNull();
    expect(await commitDiff(kb.root, narrow, hidden)).toBeNull();
    expect(await commitDiff(kb.root, narrow, hidden.slice(0, 7))).toBeNull();
    expect(await commitDiff(kb.root, narrow, "0".repeat(40))).toBeNull();
    expect(await commitDiff(kb.root, narrow, "HEAD")).toBeNull();
    expect(await commitDiff(kb.root, narrow, "--all")).toBeNull();
    // A commit object that exists but is not in the KB's history (a dangling one).
    const tree = git(kb.root, ["rev-parse", "HEAD^{tree}"]);
    const dangling = git(kb.root, ["commit-tree", tree, "-m", "elsewhere"]);
    expect(await commitDiff(kb.root, kb.scopeOf(LOCAL_ADMIN), dangling)).toBeNull();
    // A blob's sha is not a commit.
    const blob = git(kb.root, ["rev-parse", "HEAD:data/alpha/public.md"]);
    expect(await commitDiff(kb.root, kb.scopeOf(LOCAL_ADMIN), blob)).toBeNull();
  });
});
