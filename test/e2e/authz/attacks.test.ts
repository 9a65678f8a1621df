/**
 * An attacker holding a narrow token (D118): argument shapes that try to reach outside the
 * policy. Runs through KbSurface.callTool — the one enforcement point both transports use —
 * against a real KB. Every probe must answer exactly `not found` / `forbidden` (or a plain
 * argument error that names nothing hidden), and nothing hidden may change on disk.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../../src/logger.js";
import type { KbSurface } from "../../../src/mcp/kb-surface.js";
import { surfaceForMount } from "../../../src/mcp/surface-for-mount.js";
import type { MountedKb } from "../../../src/runtime/mount.js";
import { IN, OUT, outcome, run, seedMain } from "../../support/authz.js";
import { principal, type TempMounts, tempMounts } from "../../support/mcp-kit.js";

let kbs: TempMounts;
let main: MountedKb;
let surface: KbSurface;

/** rw on map alpha only (any type). */
const MAP_ROLE = principal("map-role", [{ kb: "main", access: "rw", maps: ["alpha"] }]);
/** rw on map alpha, type note only. */
const TYPE_ROLE = principal("type-role", [
  { kb: "main", access: "rw", maps: ["alpha"], types: ["note"] },
]);

beforeAll(async () => {
  kbs = await tempMounts(["main"]);
  main = kbs.byName.main as MountedKb;
  await seedMain(main);
  // An expanded visible note with a satellite of a type the typed role may not touch.
  await run(main, "concept_write", {
    id: "alpha/folder",
    frontmatter: { type: "note", title: "Folder" },
    body: "x\n",
  });
  await run(main, "concept_expand", { id: "alpha/folder" });
  await run(main, "concept_write", {
    id: "alpha/folder/secret-task",
    frontmatter: { type: "task", title: "Secret task" },
    body: "hidden\n",
  });
  surface = surfaceForMount(main, { logger: silentLogger });
}, 30_000);
afterAll(async () => {
  await kbs?.cleanup();
});

async function call(who: typeof MAP_ROLE, name: string, args: Record<string, unknown>) {
  const res = await surface.callTool(name, args, {
    principal: who,
    transport: "in-memory",
    requestId: "",
  });
  return outcome(res);
}

const DENIED = { text: "not found", isError: true };

describe("asset paths are authorized where the store puts them", () => {
  for (const path of [
    "alpha/../beta/pic.bin",
    "data/alpha/../beta/pic.bin",
    "alpha/./../beta/pic.bin",
    "alpha/../data/beta/pic.bin",
  ]) {
    it(`asset_read ${path} under a map-alpha role answers not found`, async () => {
      expect(await call(MAP_ROLE, "asset_read", { path })).toEqual(DENIED);
    });
  }

  it("asset_write through alpha/.. into beta is refused and writes nothing", async () => {
    const got = await call(MAP_ROLE, "asset_write", {
      path: "alpha/../beta/evil.bin",
      content_base64: "AAAA",
    });
    expect(got).toEqual(DENIED);
    await expect(readFile(join(main.settings.root, "data/beta/evil.bin"))).rejects.toThrow();
  });

  it("asset_delete through alpha/.. on a beta asset is refused", async () => {
    expect(
      await call(MAP_ROLE, "asset_delete", { path: "alpha/../beta/pic.bin", force: true }),
    ).toEqual(DENIED);
    expect((await readFile(join(main.settings.root, "data/beta/pic.bin"))).length).toBe(3);
  });

  it("a visible asset through a harmless ./ still reads", async () => {
    const got = await call(MAP_ROLE, "asset_read", { path: "alpha/./pic.bin" });
    expect(got.isError).toBe(false);
  });
});

describe("odd concept id forms never reveal a hidden concept", () => {
  for (const id of [
    "Beta/out-note",
    "beta//out-note",
    "./beta/out-note",
    "beta/out-note.md",
    "alpha/../beta/out-note",
    "ｂeta/out-note",
    "services/../beta/out-note",
  ]) {
    it(`concept_read ${JSON.stringify(id)} leaks nothing of ${OUT}`, async () => {
      const got = await call(MAP_ROLE, "concept_read", { id });
      expect(got.isError).toBe(true);
      expect(got.text).not.toContain("out-note title");
      expect(got.text).not.toContain("Body of");
    });
  }
});

describe("moves, supersede and batches check every end", () => {
  it("concept_move visible → hidden and hidden → visible both answer not found", async () => {
    for (const [from, to] of [
      [IN, "beta/moved"],
      [OUT, "alpha/stolen"],
    ]) {
      expect(await call(MAP_ROLE, "concept_move", { from, to, rewrite_links: false })).toEqual(
        DENIED,
      );
    }
  });

  it("supersede pointing a visible concept at a hidden one answers not found", async () => {
    expect(await call(MAP_ROLE, "supersede", { id: IN, by: OUT })).toEqual(DENIED);
  });

  it("concept_batch mixing a visible and a hidden target changes nothing", async () => {
    const before = await readFile(join(main.settings.root, `data/${IN}.md`), "utf8");
    const got = await call(MAP_ROLE, "concept_batch", {
      operations: [
        { op: "patch", id: IN, old_string: "Body", new_string: "Pwned" },
        { op: "delete", id: OUT },
      ],
    });
    expect(got).toEqual(DENIED);
    expect(await readFile(join(main.settings.root, `data/${IN}.md`), "utf8")).toBe(before);
  });

  it("moving an expanded note whose satellite has a hidden type is refused (typed role)", async () => {
    const got = await call(TYPE_ROLE, "concept_move", {
      from: "alpha/folder",
      to: "alpha/renamed",
      rewrite_links: false,
    });
    expect(got.isError).toBe(true);
    expect(got.text).not.toContain("secret-task");
    await readFile(join(main.settings.root, "data/alpha/folder/secret-task.md"));
  });

  it("index_patch on a hidden map's index is refused", async () => {
    const got = await call(MAP_ROLE, "index_patch", {
      scope: "beta",
      old_string: "x",
      new_string: "y",
    });
    expect(got.isError).toBe(true);
    expect(["forbidden", "not found"]).toContain(got.text);
  });

  it("a kb argument on a per-KB endpoint names only this KB and widens nothing", async () => {
    // Go's skills send `kb` everywhere: naming the KB served is accepted and changes nothing.
    const own = await call(MAP_ROLE, "concept_read", { id: IN, kb: "main" });
    expect(own.isError).toBe(false);
    const other = await call(MAP_ROLE, "concept_read", { id: IN, kb: "elsewhere" });
    expect(other.isError).toBe(true);
    expect(other.text).toMatch(
      /invalid_argument: 'kb' is "elsewhere" but this endpoint serves only KB 'main'/,
    );
  });
});

describe("a map role curates its own map's index", () => {
  it("index_patch on its map is authorized (reaches the handler)", async () => {
    const got = await call(MAP_ROLE, "index_patch", {
      scope: "alpha",
      old_string: "zzz-absent",
      new_string: "y",
    });
    expect(got.isError).toBe(true);
    expect(got.text).toMatch(/old_string_not_found/);
  });
});

describe("collections under a map role never name the hidden map's content", () => {
  const probes: [string, Record<string, unknown>][] = [
    ["search", { query: "title" }],
    ["search", { query: "out-note" }],
    ["concept_list", {}],
    ["concept_list", { prefix: "beta" }],
    ["changes_since", { since: "1970-01-01T00:00:00Z" }],
    ["graph_neighbors", { id: IN }],
    ["contradiction_report", {}],
    ["atlas_overview", {}],
    ["map_list", {}],
    ["asset_list", {}],
  ];
  for (const [tool, args] of probes) {
    it(`${tool} ${JSON.stringify(args)}`, async () => {
      const got = await call(MAP_ROLE, tool, args);
      expect(got.isError, got.text).toBe(false);
      expect(got.text).not.toMatch(/beta/);
    });
  }
});

it("the same probes do show the hidden map to a whole-KB reader (the probes can fail)", async () => {
  const reader = principal("reader", [{ kb: "main", access: "r" }]);
  for (const [tool, args] of [
    ["search", { query: "title" }],
    ["concept_list", {}],
    ["graph_neighbors", { id: IN }],
    ["map_list", {}],
    ["asset_list", {}],
  ] as const) {
    expect((await call(reader, tool, args)).text, tool).toMatch(/beta/);
  }
});
