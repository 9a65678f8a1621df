/**
 * docs/decisions.md "Walks never follow a symlink": a symlinked
 * folder inside a KB (`services -> /elsewhere`, a `data/` child, a templates or skills folder) must
 * never bring outside files into any walk: index scan and reconcile (search), concept_list,
 * graph_neighbors, lint, asset_list, template_list, skill_list. A symlink that stays inside the KB
 * is skipped too (no second id for one file).
 */
import { mkdir, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { allTools } from "../../../src/tools/registry.js";
import { callTool } from "../../support/call-tool.js";
import { seedKb } from "../../support/kb.js";
import { useTempDirs } from "../../support/temp-dir.js";
import { makeTempKb, type TempKb } from "../../support/tool-kb.js";

const SECRET_WORD = "zebracanary";
const SECRET_TITLE = "Outside Secret Title";
const secretNote = `---\ntype: note\ntitle: ${SECRET_TITLE}\n---\n${SECRET_WORD} lives outside the KB.\n`;

const newDir = useTempDirs("carto-walk-", "file");
let kb: TempKb;

async function call(name: string, args: Record<string, unknown> = {}): Promise<string> {
  const spec = allTools().find((s) => s.name === name);
  if (!spec) throw new Error(`no tool ${name}`);
  return JSON.stringify(await callTool(kb.runtime, spec, args));
}

function expectNoLeak(text: string): void {
  expect(text).not.toContain(SECRET_WORD);
  expect(text).not.toContain(SECRET_TITLE);
  expect(text).not.toContain("secret.bin");
  expect(text).not.toContain("mirror/");
}

beforeAll(async () => {
  const tmp = newDir();
  const outside = join(tmp, "elsewhere");
  await mkdir(join(outside, "sub"), { recursive: true });
  await writeFile(join(outside, "secret.md"), secretNote);
  await writeFile(join(outside, "sub", "deep.md"), secretNote);
  await writeFile(join(outside, "_map.md"), "---\ntype: Map\nkind: map\n---\n");
  await writeFile(join(outside, "secret.bin"), SECRET_WORD);
  await mkdir(join(outside, "skill", "evil"), { recursive: true });
  await writeFile(
    join(outside, "skill", "evil", "SKILL.md"),
    `---\nname: ${SECRET_WORD}\ndescription: ${SECRET_TITLE}\n---\n`,
  );

  const root = join(tmp, "kb");
  await seedKb(root, {
    "data/alpha/_map.md": "---\ntype: Map\nkind: map\n---\n",
    "data/alpha/inside.md":
      "---\ntype: note\ntitle: Inside\n---\nLinks [[services/secret]] [[leak/secret]].\n",
  });
  await mkdir(join(root, "templates"), { recursive: true });
  // Symlinks made after the commit, as a clone or an operator would leave them.
  await rm(join(root, "services"), { recursive: true, force: true });
  await symlink(outside, join(root, "services"));
  await symlink(outside, join(root, "data", "leak"));
  await symlink(join(root, "data", "alpha"), join(root, "data", "mirror"));
  await symlink(join(root, "artifacts"), join(root, "artifacts")); // a loop: never walked
  await symlink(join(outside, "secret.md"), join(root, "templates", "evil.md"));
  await symlink(join(outside, "skill"), join(root, "skills"));
  // Files lint looks up by name: a map index and an expanded twin of alpha/inside, both outside.
  await mkdir(join(outside, "twin"), { recursive: true });
  await writeFile(join(outside, "twin", "index.md"), secretNote);
  await symlink(join(outside, "twin"), join(root, "data", "alpha", "inside"));
  await symlink(join(outside, "secret.md"), join(root, "data", "alpha", "index.md"));
  // A symlink loop where alpha/second's expanded twin would be.
  await writeFile(join(root, "data", "alpha", "second.md"), "---\ntype: note\n---\nSecond\n");
  await symlink(join(root, "data", "alpha", "second"), join(root, "data", "alpha", "second"));
  // The index is built from the walk on open (scan + reconcile).
  kb = await makeTempKb({ existingRoot: root });
});

afterAll(async () => {
  await kb?.cleanup();
});

describe("walks never follow a symlinked folder", () => {
  it("search finds nothing outside (title, snippet, substring fallback)", async () => {
    for (const query of [SECRET_WORD, "Outside Secret", "lives outside"]) {
      expectNoLeak(await call("search", { query }));
    }
    expect(await call("search", { query: "Inside" })).toContain("alpha/inside");
  });

  it("concept_list lists only the KB's own concepts", async () => {
    const out = await call("concept_list", {});
    expectNoLeak(out);
    expect(out).not.toContain("services/");
    expect(out).not.toContain("leak/");
    expect(out).toContain("alpha/inside");
  });

  it("graph_neighbors does not resolve links into the symlinked folders", async () => {
    expectNoLeak(await call("graph_neighbors", { id: "alpha/inside", direction: "both" }));
  });

  it("lint, map_list, asset_list, template_list and skill_list see nothing outside", async () => {
    expectNoLeak(await call("lint", {}));
    const maps = await call("map_list", {});
    expect(maps).not.toContain("leak");
    expectNoLeak(await call("asset_list", {}));
    expectNoLeak(await call("template_list", {}));
    expect(await call("template_list", {})).not.toContain("evil");
    expectNoLeak(await call("skill_list", {}));
  });

  it("the store's own walks (listConcepts, scan, assets) skip every symlinked folder", async () => {
    const { store } = kb.runtime;
    const ids = (await store.listConcepts()).map((d) => d.id);
    expect(ids).toEqual(["alpha/inside", "alpha/second"]);
    expect((await store.scanConceptFiles()).map((f) => f.id)).toEqual([
      "alpha/inside",
      "alpha/second",
    ]);
    expect((await store.readConcept("alpha/second")).body).toBe("Second\n");
    expect((await store.assets()).map((a) => a.path)).toEqual([]);
    expect((await store.maps()).map((m) => m.name)).toEqual(["alpha"]);
    expect(await store.artifacts()).toEqual([]); // artifacts/ is a symlink loop
  });

  it("a full index rebuild and a reconcile stay clean", async () => {
    await call("index_rebuild", {});
    expectNoLeak(await call("search", { query: SECRET_WORD }));
    await call("reindex", {});
    expectNoLeak(await call("search", { query: SECRET_WORD }));
    expectNoLeak(await call("concept_list", {}));
  });
});
