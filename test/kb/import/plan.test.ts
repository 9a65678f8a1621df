/** The import planner (src/kb/import/plan.ts): ids, collisions, links, embeds, assets, tags. */
import { describe, expect, it } from "vitest";
import { buildImportPlan, IMPORT_ASSET_MAX_BYTES } from "../../../src/kb/import/plan.js";
import type { ImportOptions, PlannedConcept } from "../../../src/kb/import/types.js";
import { ASSET_MAX_BYTES } from "../../../src/kb/store/assets.js";
import { SAMPLE_VAULT, scanOf } from "./vault.js";

const OPTS: ImportOptions = {
  sourceName: "vault",
  maps: [],
  defaultMap: "notes",
  dirAsConcept: false,
};
const plan = (files = SAMPLE_VAULT, opts: Partial<ImportOptions> = {}) =>
  buildImportPlan(scanOf(files), { ...OPTS, ...opts });
const bySource = (concepts: PlannedConcept[], source: string) => {
  const c = concepts.find((x) => x.source === source);
  if (!c) throw new Error(`no concept for ${source}`);
  return c;
};

describe("ids", () => {
  it("flattens every folder into its map (Go's rule); duplicates get -2 in source order and are reported", () => {
    const p = plan();
    expect(Object.fromEntries(p.concepts.map((c) => [c.source, c.id]))).toEqual({
      "Daily/2024-01-01.md": "notes/2024-01-01",
      "Daily/Plan.md": "notes/plan",
      "Home.md": "notes/home",
      "Projects/Alpha/Alpha.md": "notes/alpha",
      "Projects/Alpha/Plan.md": "notes/plan-2",
      "Résumé Café.md": "notes/resume-cafe",
      "日本語.md": "notes/concept",
    });
    expect(p.collisions).toEqual([
      {
        name: "notes/plan",
        reason: "duplicate",
        assigned: [
          { source: "Daily/Plan.md", id: "notes/plan" },
          { source: "Projects/Alpha/Plan.md", id: "notes/plan-2" },
        ],
      },
      {
        name: "notes/concept",
        reason: "no_usable_characters",
        assigned: [{ source: "日本語.md", id: "notes/concept" }],
      },
    ]);
    expect(p.maps).toEqual(["notes"]);
  });

  it("--map covers a folder and its subfolders, the longest one winning; an unmapped folder is an error", () => {
    const p = plan(SAMPLE_VAULT, {
      defaultMap: undefined,
      maps: [
        { from: ".", to: "inbox" },
        { from: "Projects", to: "work" },
        { from: "Projects/Alpha", to: "work/alpha" },
      ],
    });
    expect(bySource(p.concepts, "Projects/Alpha/Plan.md").id).toBe("work/alpha/plan");
    expect(bySource(p.concepts, "Daily/Plan.md").id).toBe("inbox/plan");
    expect(() =>
      plan(SAMPLE_VAULT, { defaultMap: undefined, maps: [{ from: "Daily", to: "d" }] }),
    ).toThrow(/no destination for source folder\(s\) \., Projects\/Alpha: add --map/);
  });

  it("a reserved name is renamed; --dir-as-concept makes a folder with index.md one expanded concept", () => {
    const files = {
      "Proj/index.md": "# Proj\n[[Child]]",
      "Proj/Child.md": "child",
      "log.md": "a log",
    };
    const flat = plan(files);
    expect(flat.concepts.map((c) => c.id).sort()).toEqual([
      "notes/child",
      "notes/index-note",
      "notes/log-note",
    ]);
    expect(flat.collisions.map((c) => [c.name, c.reason])).toEqual([
      ["notes/index", "reserved"],
      ["notes/log", "reserved"],
    ]);
    const folder = plan(files, { dirAsConcept: true });
    const owner = bySource(folder.concepts, "Proj/index.md");
    expect(owner).toMatchObject({
      id: "notes/proj",
      path: "data/notes/proj/index.md",
      expand: true,
    });
    expect(owner.body).toBe("# Proj\n[[notes/proj/child|Child]]");
    expect(bySource(folder.concepts, "Proj/Child.md").id).toBe("notes/proj/child");
  });
});

describe("links", () => {
  it("wiki links resolve by Obsidian's shortest-path rule and keep heading and alias", () => {
    const p = plan();
    // Two notes are named Plan: the bare name takes the one with the fewest folders.
    expect(bySource(p.concepts, "Home.md").body).toBe(
      "# Welcome\nStart at [[notes/plan|Plan]], then [[notes/plan-2|the alpha plan]].\n#start\n",
    );
    expect(bySource(p.concepts, "Daily/2024-01-01.md").body).toBe(
      "# Day one\nWorked on [[notes/alpha#Goals|Alpha]] and ![diagram.png](2024-01-01/diagram.png).\n",
    );
  });

  it("a tie in path length goes to the path first in code-point order", () => {
    const p = plan({ "b/Same.md": "b", "a/Same.md": "a", "Top.md": "[[Same]]" });
    expect(bySource(p.concepts, "Top.md").body).toBe("[[notes/same|Same]]");
    expect(bySource(p.concepts, "a/Same.md").id).toBe("notes/same");
  });

  it("relative Markdown links are recomputed, code is untouched, and what names nothing is reported", () => {
    const p = plan();
    expect(bySource(p.concepts, "Projects/Alpha/Plan.md").body).toBe(
      "# The plan\nBack to [home](home.md) and [day](2024-01-01.md#day-one). [[Nowhere]]\n",
    );
    const alpha = bySource(p.concepts, "Projects/Alpha/Alpha.md");
    expect(alpha.body).toContain("![[notes/home]]\n```\n[[Ghost-in-code]] #notatag\n```");
    expect(p.unresolved).toEqual([{ source: "Projects/Alpha/Plan.md", link: "[[Nowhere]]" }]);
  });

  it("an embedded attachment is copied once, as an asset of the first note that embeds it", () => {
    const p = plan({
      ...SAMPLE_VAULT,
      "Later.md": "![[diagram.png|300]] and [[attachments/diagram.png|the diagram]]",
    });
    expect(bySource(p.concepts, "Daily/2024-01-01.md").assets).toEqual([
      {
        source: "attachments/diagram.png",
        path: "data/notes/2024-01-01/diagram.png",
        owner: "notes/2024-01-01",
        size: 7,
      },
    ]);
    expect(bySource(p.concepts, "Later.md")).toMatchObject({
      assets: [],
      body: "![diagram.png](2024-01-01/diagram.png) and [the diagram](2024-01-01/diagram.png)",
    });
    expect(p.ignored).toEqual(["attachments/unused.pdf"]);
  });

  it("an attachment over 1 MiB is an error and its link stays as written", () => {
    expect(IMPORT_ASSET_MAX_BYTES).toBe(ASSET_MAX_BYTES); // the planner's copy of the store's limit
    const scan = scanOf({ "N.md": "![[big.png]]" });
    scan.files.push({ rel: "big.png", size: 2 * 1024 * 1024 });
    const p = buildImportPlan(scan, OPTS);
    expect(p.concepts[0]?.body).toBe("![[big.png]]");
    expect(p.errors).toEqual([
      { source: "big.png", message: expect.stringMatching(/at most 1048576/) },
    ]);
  });
});

describe("frontmatter", () => {
  it("keeps what is there and adds title (first H1, else the file name), type, status and inline tags", () => {
    const p = plan();
    expect(bySource(p.concepts, "Projects/Alpha/Alpha.md").frontmatter).toEqual({
      title: "Alpha (kept)",
      tags: ["project", "status/active"],
      type: "Note",
      status: "imported",
    });
    expect(bySource(p.concepts, "Home.md").frontmatter).toEqual({
      title: "Welcome",
      type: "Note",
      status: "imported",
      tags: ["start"],
    });
    expect(bySource(p.concepts, "Résumé Café.md").frontmatter.title).toBe("Résumé Café");
  });

  it("a note whose frontmatter cannot be read is an error naming it; the others import", () => {
    const p = plan({ "Bad.md": "---\ntitle: x\n", "Good.md": "fine" });
    expect(p.concepts.map((c) => c.id)).toEqual(["notes/good"]);
    expect(p.errors).toEqual([
      {
        source: "Bad.md",
        message: expect.stringMatching(/never closed.*fix the note's frontmatter/),
      },
    ]);
  });
});
