/**
 * A concept's history per viewer, across its renames: each entry with the name it had then; a
 * rename from a name the viewer cannot see ends the history there (the move shows as the
 * concept's creation) and nothing names the older id; the cursor carries commits, never names.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  conceptHistory,
  formatHistoryCursor,
  type HistoryCursor,
  type HistoryEntry,
  MAX_MOVES,
  parseHistoryCursor,
  renameSource,
} from "../../../src/console/data/concept-history.js";
import { SCAN_BUDGET_MS } from "../../../src/console/data/feed.js";
import { LOCAL_ADMIN } from "../../../src/mcp/context.js";
import { git } from "../../support/kb.js";
import { principal } from "../../support/mcp-kit.js";
import { type GovKb, govKb, HIDDEN_WORDS, NARROW } from "./gov-kb.js";

/** Reads map alpha, every type: may see an older name in alpha. */
const MAP_ONLY = principal("map-only", [{ kb: "main", access: "r", maps: ["alpha"] }]);

/**
 * A clock that never moves: the page's time budget never cuts these pages short on a loaded
 * machine (the budget has its own test below).
 */
const FROZEN = () => 0;
const history = (...args: Parameters<typeof conceptHistory>) =>
  conceptHistory(args[0], args[1], args[2], args[3], { now: FROZEN, ...args[4] });

let kb: GovKb;
beforeAll(async () => {
  kb = await govKb();
  await kb.call("concept_write", {
    id: "alpha/old",
    frontmatter: { type: "note", title: "Renamed note" },
    body: "first\n",
  });
  await kb.call("concept_move", { from: "alpha/old", to: "alpha/mid" });
  await kb.call("concept_expand", { id: "alpha/mid" });
  await kb.call("concept_move", { from: "alpha/mid", to: "alpha/new" });
  const read = JSON.parse(await kb.call("concept_read", { id: "alpha/new" })) as { hash: string };
  await kb.call("concept_write", {
    id: "alpha/new",
    frontmatter: { type: "note", title: "Renamed note" },
    body: "latest\n",
    if_match: read.hash,
  });
  // A concept that came into the visible map from the hidden one.
  await kb.call("concept_write", {
    id: "beta/secret-z",
    frontmatter: { type: "note", title: "Secret Title z" },
    body: "born hidden\n",
  });
  await kb.call("concept_move", { from: "beta/secret-z", to: "alpha/from-beta" });
}, 60_000);
afterAll(async () => kb?.cleanup());

const names = (p: { commits: HistoryEntry[] } | null) =>
  p?.commits.map((c) => [c.subject, c.name, c.renamedFrom ?? ""]);

const FULL = [
  ["concept_write: alpha/new", "alpha/new", ""],
  ["concept_move: alpha/mid", "alpha/new", "alpha/mid"],
  ["concept_expand: alpha/mid", "alpha/mid", ""],
  ["concept_move: alpha/old", "alpha/mid", "alpha/old"],
  ["concept_write: alpha/old", "alpha/old", ""],
];

describe("conceptHistory", () => {
  it("lists the commits of a visible concept", async () => {
    const page = await history(kb.root, kb.scopeOf(NARROW), "alpha/public");
    expect(page?.commits.map((c) => c.subject)).toEqual(["concept_write: alpha/public"]);
    expect(page?.commits[0]?.paths).toEqual(["data/alpha/public.md"]);
    expect(page?.next).toBeNull();
  });

  it("follows renames back to the first name, each entry with the name it had then", async () => {
    const admin = await history(kb.root, kb.scopeOf(LOCAL_ADMIN), "alpha/new");
    expect(names(admin)).toEqual(FULL);
    expect(admin?.commits[1]?.files).toEqual([
      { status: "R", paths: ["data/alpha/mid/index.md", "data/alpha/new/index.md"] },
    ]);
    // A viewer of the whole map sees the older names too: they are in its map.
    expect(names(await history(kb.root, kb.scopeOf(MAP_ONLY), "alpha/new"))).toEqual(FULL);
  });

  it("ends at a rename from a name the viewer cannot see, naming nothing of it", async () => {
    // NARROW reads notes only: an id that no longer exists has no type, so it is hidden.
    const narrow = await history(kb.root, kb.scopeOf(NARROW), "alpha/new");
    expect(names(narrow)).toEqual([
      ["concept_write: alpha/new", "alpha/new", ""],
      ["concept_move: alpha/new", "alpha/new", ""],
    ]);
    expect(narrow?.commits[1]?.files).toEqual([
      { status: "A", paths: ["data/alpha/new/index.md"] },
    ]);
    expect(narrow?.next).toBeNull();
    expect(JSON.stringify(narrow)).not.toMatch(/alpha\/(mid|old)/);

    const moved = await history(kb.root, kb.scopeOf(MAP_ONLY), "alpha/from-beta");
    expect(names(moved)).toEqual([["concept_move: alpha/from-beta", "alpha/from-beta", ""]]);
    expect(moved?.next).toBeNull();
    for (const word of [...HIDDEN_WORDS, "secret-z", "born hidden"])
      expect(JSON.stringify(moved)).not.toContain(word);
    const admin = await history(kb.root, kb.scopeOf(LOCAL_ADMIN), "alpha/from-beta");
    expect(names(admin)).toEqual([
      ["concept_move: beta/secret-z", "alpha/from-beta", "beta/secret-z"],
      ["concept_write: beta/secret-z", "beta/secret-z", ""],
    ]);
  });

  it("pages across renames with cursors that name commits, never ids", async () => {
    const scope = kb.scopeOf(MAP_ONLY);
    const seen: HistoryEntry[] = [];
    const cursors: string[] = [];
    let at: HistoryCursor | null = { moves: [], skip: 0 };
    while (at !== null) {
      const page = await conceptHistory(kb.root, scope, "alpha/new", at, { size: 2, now: FROZEN });
      if (page === null) throw new Error("page vanished");
      seen.push(...page.commits);
      at = page.next;
      if (at) cursors.push(formatHistoryCursor(at));
    }
    expect(seen.map((c) => [c.subject, c.name, c.renamedFrom ?? ""])).toEqual(FULL);
    expect(cursors).toHaveLength(2);
    for (const text of cursors) {
      expect(text).toMatch(/^[0-9a-f_-]+$/);
      expect(parseHistoryCursor(text)).toEqual(
        expect.objectContaining({ skip: expect.any(Number) }),
      );
    }
  });

  it("refuses a cursor that is not a followable rename of the concept, like a missing id", async () => {
    const head = git(kb.root, ["rev-parse", "HEAD"]);
    const notRename = { moves: [head.slice(0, 16)], skip: 0 };
    expect(await history(kb.root, kb.scopeOf(LOCAL_ADMIN), "alpha/new", notRename)).toBeNull();
    // The hidden-side move, named in a link by someone who may see it: refused to MAP_ONLY.
    expect(
      await history(kb.root, kb.scopeOf(LOCAL_ADMIN), "alpha/from-beta", {
        moves: [head.slice(0, 16)],
        skip: 0,
      }),
    ).not.toBeNull();
    expect(
      await history(kb.root, kb.scopeOf(MAP_ONLY), "alpha/from-beta", {
        moves: [head.slice(0, 16)],
        skip: 0,
      }),
    ).toBeNull();
    expect(
      await history(kb.root, kb.scopeOf(MAP_ONLY), "alpha/new", {
        moves: ["0".repeat(16)],
        skip: 0,
      }),
    ).toBeNull();
  });

  it("stops a page at its time budget and goes on from there with the cursor", async () => {
    // Every reading of this clock is past the budget: each page stops after its first batch.
    let t = 0;
    const late = () => {
      t += SCAN_BUDGET_MS + 1;
      return t;
    };
    const seen: HistoryEntry[] = [];
    let partial = 0;
    let at: HistoryCursor | null = { moves: [], skip: 0 };
    while (at !== null) {
      const page = await conceptHistory(kb.root, kb.scopeOf(LOCAL_ADMIN), "alpha/new", at, {
        now: late,
      });
      if (page === null) throw new Error("page vanished");
      if (page.partial) partial++;
      seen.push(...page.commits);
      at = page.next;
    }
    expect(partial).toBeGreaterThan(0);
    expect(seen.map((c) => [c.subject, c.name, c.renamedFrom ?? ""])).toEqual(FULL);
  });

  it("follows at most MAX_MOVES renames, then says the history stops there", async () => {
    await kb.call("concept_write", {
      id: "alpha/m0",
      frontmatter: { type: "note", title: "Much moved" },
      body: "x\n",
    });
    for (let i = 0; i <= MAX_MOVES; i++)
      await kb.call("concept_move", { from: `alpha/m${i}`, to: `alpha/m${i + 1}` });
    const last = `alpha/m${MAX_MOVES + 1}`;
    // Each rename costs git reads: a loaded machine may stop a page at its time budget.
    const seen: HistoryEntry[] = [];
    let at: HistoryCursor | null = { moves: [], skip: 0 };
    let cut = false;
    while (at !== null) {
      const page = await history(kb.root, kb.scopeOf(LOCAL_ADMIN), last, at);
      if (page === null) throw new Error("page vanished");
      seen.push(...page.commits);
      cut = page.movesCut;
      at = page.next;
    }
    expect(cut).toBe(true);
    expect(seen).toHaveLength(MAX_MOVES + 1);
    // The 11th rename is listed (its older name may be seen) but not followed.
    expect(seen.at(-1)).toMatchObject({ name: "alpha/m1", renamedFrom: "alpha/m0" });
    expect(seen.some((c) => c.name === "alpha/m0")).toBe(false);
  });

  it("answers null alike for a hidden, unknown or malformed id", async () => {
    const narrow = kb.scopeOf(NARROW);
    expect(await history(kb.root, kb.scopeOf(LOCAL_ADMIN), "beta/secret-x")).not.toBeNull();
    expect(await history(kb.root, narrow, "beta/secret-x")).toBeNull();
    expect(await history(kb.root, narrow, "alpha/in-task")).toBeNull();
    expect(await history(kb.root, narrow, "alpha/never-written")).toBeNull();
    expect(await history(kb.root, narrow, "../etc")).toBeNull();
  });
});

describe("history cursors and renames (pure)", () => {
  it("round-trip a cursor and refuse a malformed one", () => {
    const c = { moves: ["0123456789abcdef", "fedcba9876543210"], skip: 7 };
    expect(parseHistoryCursor(formatHistoryCursor(c))).toEqual(c);
    expect(parseHistoryCursor("12")).toEqual({ moves: [], skip: 12 });
    for (const bad of [
      "",
      "-1",
      "x",
      "abc-",
      "HEAD-1",
      "0123456-1_2",
      `${"a1b2c3d_".repeat(11)}0-1`,
    ])
      expect(parseHistoryCursor(bad)).toBeNull();
  });

  it("an expansion is the same concept, a move is another name", () => {
    const raw = (status: string, paths: string[]) => ({
      sha: "a".repeat(40),
      parents: [],
      time: "",
      author: "",
      subject: "",
      files: [{ status, paths }],
    });
    expect(renameSource(raw("R", ["data/a/x.md", "data/a/x/index.md"]), "a/x")).toBeNull();
    expect(renameSource(raw("R", ["data/a/y.md", "data/a/x.md"]), "a/x")).toBe("a/y");
    expect(renameSource(raw("R", ["data/a/y/index.md", "data/b/x/index.md"]), "b/x")).toBe("a/y");
    expect(renameSource(raw("C", ["data/a/y.md", "data/a/x.md"]), "a/x")).toBeNull();
    expect(renameSource(raw("R", ["data/a/x.md", "data/a/z.md"]), "a/x")).toBeNull();
    expect(renameSource(raw("R", ["assets/p.png", "data/a/x.md"]), "a/x")).toBeNull();
  });
});
