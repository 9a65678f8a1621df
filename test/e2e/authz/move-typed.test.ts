/**
 * concept_move under a type-restricted role (D118): a move keeps the type, so the destination is
 * judged with the source's type; an expanded concept carries its folder along, so every file in
 * it is judged at both ends and a hidden one makes the move `not found` with nothing moved.
 */
import { access, readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Principal } from "../../../src/auth/types.js";
import { silentLogger } from "../../../src/logger.js";
import type { KbSurface } from "../../../src/mcp/kb-surface.js";
import { surfaceForMount } from "../../../src/mcp/surface-for-mount.js";
import type { MountedKb } from "../../../src/runtime/mount.js";
import { outcome, run, seedMain } from "../../support/authz.js";
import { principal, type TempMounts, tempMounts } from "../../support/mcp-kit.js";

let kbs: TempMounts;
let main: MountedKb;
let surface: KbSurface;

/** rw on maps alpha and gamma, type note only; read on beta (any type). */
const TYPED = principal("typed", [
  { kb: "main", access: "rw", maps: ["alpha", "gamma"], types: ["note"] },
  { kb: "main", access: "r", maps: ["beta"] },
]);
/** rw on maps alpha and gamma, any type. */
const MAPS = principal("maps", [{ kb: "main", access: "rw", maps: ["alpha", "gamma"] }]);

const note = (id: string, type = "note") =>
  run(main, "concept_write", { id, frontmatter: { type, title: id }, body: "x\n" });

/** An expanded note `id` with the given satellites (name → type) and optionally an asset. */
async function expanded(id: string, satellites: Record<string, string>, asset = false) {
  await note(id);
  await run(main, "concept_expand", { id });
  for (const [name, type] of Object.entries(satellites)) await note(`${id}/${name}`, type);
  if (asset) await run(main, "asset_write", { path: `${id}/pic.bin`, content_base64: "AAAA" });
}

beforeAll(async () => {
  kbs = await tempMounts(["main"]);
  main = kbs.byName.main as MountedKb;
  await seedMain(main);
  await run(main, "map_create", { name: "gamma", kind: "map" });
  for (const id of ["alpha/m1", "alpha/m2", "alpha/m3", "alpha/m4"]) await note(id);
  await expanded("alpha/box-secret", { plan: "note", "secret-task": "task" });
  await expanded("alpha/box-notes", { one: "note", two: "note" });
  await expanded("alpha/box-asset", { one: "note" }, true);
  surface = surfaceForMount(main, { logger: silentLogger });
}, 30_000);
afterAll(async () => {
  await kbs?.cleanup();
});

async function move(who: Principal, from: string, to: string) {
  const res = await surface.callTool(
    "concept_move",
    { from, to, rewrite_links: false },
    { principal: who, transport: "in-memory", requestId: "" },
  );
  return outcome(res);
}

const onDisk = (path: string) =>
  access(join(main.settings.root, path)).then(
    () => true,
    () => false,
  );

describe("a typed role moves concepts of its type", () => {
  it("within a permitted map", async () => {
    const got = await move(TYPED, "alpha/m1", "alpha/m1-renamed");
    expect(got.isError, got.text).toBe(false);
    expect(await onDisk("data/alpha/m1-renamed.md")).toBe(true);
    expect(await onDisk("data/alpha/m1.md")).toBe(false);
  });

  it("across permitted maps", async () => {
    const got = await move(TYPED, "alpha/m2", "gamma/m2");
    expect(got.isError, got.text).toBe(false);
    expect(await onDisk("data/gamma/m2.md")).toBe(true);
  });

  it("not into a map it cannot see (not found) nor one it can only read (forbidden)", async () => {
    const hidden = principal("hidden", [
      { kb: "main", access: "rw", maps: ["alpha"], types: ["note"] },
    ]);
    expect(await move(hidden, "alpha/m3", "gamma/m3")).toEqual({
      text: "not found",
      isError: true,
    });
    expect(await move(TYPED, "alpha/m3", "beta/m3")).toEqual({
      text: "forbidden",
      isError: true,
    });
    expect(await onDisk("data/alpha/m3.md")).toBe(true);
  });

  it("not a concept of another type (hidden: not found)", async () => {
    expect(await move(TYPED, "alpha/in-task", "alpha/task-2")).toEqual({
      text: "not found",
      isError: true,
    });
  });

  it("an expanded note whose satellites are all its type moves with them", async () => {
    const got = await move(TYPED, "alpha/box-notes", "gamma/box-notes");
    expect(got.isError, got.text).toBe(false);
    expect(await onDisk("data/gamma/box-notes/index.md")).toBe(true);
    expect(await onDisk("data/gamma/box-notes/two.md")).toBe(true);
  });
});

describe("an expanded concept never carries a hidden file along", () => {
  it("a satellite of a hidden type makes the move not found; nothing moves", async () => {
    const before = await readFile(
      join(main.settings.root, "data/alpha/box-secret/secret-task.md"),
      "utf8",
    );
    expect(await move(TYPED, "alpha/box-secret", "alpha/box-moved")).toEqual({
      text: "not found",
      isError: true,
    });
    expect(await onDisk("data/alpha/box-moved")).toBe(false);
    expect(await onDisk("data/alpha/box-secret/index.md")).toBe(true);
    expect(
      await readFile(join(main.settings.root, "data/alpha/box-secret/secret-task.md"), "utf8"),
    ).toBe(before);
  });

  it("an asset in the folder (no type: hidden from a typed role) is not found too", async () => {
    expect(await move(TYPED, "alpha/box-asset", "alpha/box-asset-2")).toEqual({
      text: "not found",
      isError: true,
    });
    expect(await onDisk("data/alpha/box-asset/pic.bin")).toBe(true);
  });

  it("a map-wide role sees every file of the folder and moves it all", async () => {
    const got = await move(MAPS, "alpha/box-secret", "gamma/box-secret");
    expect(got.isError, got.text).toBe(false);
    expect(got.text).toContain("gamma/box-secret/secret-task");
    expect(await onDisk("data/gamma/box-secret/secret-task.md")).toBe(true);
  });
});
