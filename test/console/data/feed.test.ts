/**
 * The change feed against a real KB written through the real pipeline: newest first, filters
 * (map, tool, principal, time), paging by cursor, and a narrow viewer seeing no hidden commit,
 * path, id or title (docs/decisions.md "Console: a commit as the viewer sees it").
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commitCalls } from "../../../src/console/data/audit-links.js";
import { checkFilter, readFeed } from "../../../src/console/data/feed.js";
import { LOCAL_ADMIN } from "../../../src/mcp/context.js";
import { type GovKb, govKb, HIDDEN_WORDS, NARROW } from "./gov-kb.js";

let kb: GovKb;
beforeAll(async () => {
  kb = await govKb();
}, 60_000);
afterAll(async () => kb?.cleanup());

const subjects = (page: { commits: { subject: string }[] }) => page.commits.map((c) => c.subject);

describe("readFeed", () => {
  it("lists every commit newest first for a whole-KB reader, subjects as written", async () => {
    const page = await readFeed(kb.root, kb.scopeOf(LOCAL_ADMIN), { filter: {}, cursor: 0 });
    expect(subjects(page).slice(0, 3)).toEqual([
      "concept_batch: alpha/mixed-visible and 1 more",
      "concept_write: alpha/in-task",
      "concept_write: beta/secret-x",
    ]);
    expect(page.next).toBeNull();
    const times = page.commits.map((c) => Date.parse(c.time));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
  });

  it("a narrow viewer: hidden commits absent, the mixed one filtered and retold", async () => {
    const page = await readFeed(kb.root, kb.scopeOf(NARROW), { filter: {}, cursor: 0 });
    expect(subjects(page)).toEqual([
      "concept_batch: alpha/mixed-visible",
      "concept_write: alpha/public",
    ]);
    const mixed = page.commits[0];
    expect(mixed?.paths).toEqual(["data/alpha/mixed-visible.md"]);
    expect(mixed?.retold).toBe(true);
    const text = JSON.stringify(page);
    for (const word of HIDDEN_WORDS) expect(text).not.toContain(word);
  });

  it("filters by map, tool and time window", async () => {
    const admin = kb.scopeOf(LOCAL_ADMIN);
    const beta = await readFeed(kb.root, admin, { filter: { map: "beta" }, cursor: 0 });
    expect(subjects(beta)).toEqual([
      "concept_batch: alpha/mixed-visible and 1 more",
      "concept_write: beta/secret-x",
      "map_create: beta",
    ]);
    const maps = await readFeed(kb.root, admin, { filter: { tool: "map_create" }, cursor: 0 });
    expect(subjects(maps)).toEqual(["map_create: beta", "map_create: alpha"]);
    const future = new Date(Date.now() + 3_600_000);
    const none = await readFeed(kb.root, admin, { filter: { since: future }, cursor: 0 });
    expect(none.commits).toEqual([]);
    const past = await readFeed(kb.root, admin, { filter: { until: new Date(0) }, cursor: 0 });
    expect(past.commits).toEqual([]);
  });

  it("filters by principal through the audit completions' commit shas", async () => {
    await kb.call("concept_write", {
      id: "alpha/by-narrow-admin",
      frontmatter: { type: "note" },
      body: "y\n",
    });
    const principalsOf = async (shas: readonly string[]) => {
      const calls = await commitCalls({ log: kb.auditLog }, "main", shas);
      return new Map(
        shas.flatMap((sha) => {
          const id = calls.get(sha)?.principal_id;
          return id === undefined ? [] : [[sha, id] as [string, string]];
        }),
      );
    };
    const admin = kb.scopeOf(LOCAL_ADMIN);
    const mine = await readFeed(kb.root, admin, {
      filter: { principal: "local-admin" },
      cursor: 0,
      principalsOf,
    });
    expect(subjects(mine)[0]).toBe("concept_write: alpha/by-narrow-admin");
    // init's commit has no audit record: never attributed.
    expect(subjects(mine)).not.toContain("init");
    const nobody = await readFeed(kb.root, admin, {
      filter: { principal: "nobody" },
      cursor: 0,
      principalsOf,
    });
    expect(nobody.commits).toEqual([]);
  });

  it("pages by cursor without overlap and ends with next null", async () => {
    const admin = kb.scopeOf(LOCAL_ADMIN);
    const all = await readFeed(kb.root, admin, { filter: {}, cursor: 0 });
    const first = await readFeed(kb.root, admin, { filter: {}, cursor: 0, size: 3 });
    expect(first.commits).toHaveLength(3);
    expect(first.next).toBe(3);
    const second = await readFeed(kb.root, admin, { filter: {}, cursor: first.next ?? 0, size: 3 });
    expect(second.commits.map((c) => c.sha)).toEqual(all.commits.slice(3, 6).map((c) => c.sha));
  });

  it("refuses a malformed filter naming the field", () => {
    expect(() => checkFilter({ map: "../x" })).toThrow(/map "\.\.\/x" is not a map name/);
    expect(() => checkFilter({ tool: "Bad Tool" })).toThrow(/tool "Bad Tool"/);
    expect(() => checkFilter({ since: new Date(2), until: new Date(1) })).toThrow(
      /since is after until/,
    );
  });
});
