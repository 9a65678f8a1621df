/**
 * asset_list's prefix under a map role (D118): a prefix naming an allowed map (or a path inside
 * it) lists that map's assets; any other prefix answers `not found` like a hidden resource; no
 * prefix lists the visible maps' assets only. Assets carry no type, so a typed role sees none.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Principal } from "../../../src/auth/types.js";
import { silentLogger } from "../../../src/logger.js";
import type { KbSurface } from "../../../src/mcp/kb-surface.js";
import { surfaceForMount } from "../../../src/mcp/surface-for-mount.js";
import type { MountedKb } from "../../../src/runtime/mount.js";
import { outcome, run, seedMain } from "../../support/authz.js";
import { principal, type TempMounts, tempMounts } from "../../support/mcp-kit.js";

let kbs: TempMounts;
let surface: KbSurface;

const MAP_ROLE = principal("map-role", [{ kb: "main", access: "rw", maps: ["alpha"] }]);
const TYPED = principal("typed", [{ kb: "main", access: "rw", maps: ["alpha"], types: ["note"] }]);

beforeAll(async () => {
  kbs = await tempMounts(["main"]);
  const main = kbs.byName.main as MountedKb;
  await seedMain(main); // data/alpha/pic.bin, data/beta/pic.bin
  // A hidden map whose name starts like the visible one, and an asset outside every map.
  await run(main, "map_create", { name: "alphax", kind: "map" });
  await run(main, "asset_write", { path: "alphax/pic.bin", content_base64: "AAAA" });
  await run(main, "asset_write", { path: "alpha/sub/deep.bin", content_base64: "AAAA" });
  await run(main, "asset_write", { path: "loose.bin", content_base64: "AAAA" });
  surface = surfaceForMount(main, { logger: silentLogger });
}, 30_000);
afterAll(async () => {
  await kbs?.cleanup();
});

async function list(who: Principal, args: Record<string, unknown>) {
  const res = await surface.callTool("asset_list", args, {
    principal: who,
    transport: "in-memory",
    requestId: "",
  });
  const got = outcome(res);
  if (got.isError) return got.text;
  return (JSON.parse(got.text) as { items: { path: string }[] }).items.map((i) => i.path).sort();
}

describe("a map role lists its map's assets by prefix", () => {
  for (const prefix of ["alpha", "alpha/", "data/alpha", "data/alpha/"]) {
    it(`prefix ${JSON.stringify(prefix)} lists alpha's assets only`, async () => {
      expect(await list(MAP_ROLE, { prefix })).toEqual([
        "data/alpha/pic.bin",
        "data/alpha/sub/deep.bin",
      ]);
    });
  }

  it("a path inside the map narrows the listing", async () => {
    expect(await list(MAP_ROLE, { prefix: "alpha/sub" })).toEqual(["data/alpha/sub/deep.bin"]);
    expect(await list(MAP_ROLE, { prefix: "alpha/nothing-here" })).toEqual([]);
  });
});

describe("a prefix outside every allowed map answers not found", () => {
  for (const prefix of [
    "beta",
    "beta/",
    "data/beta",
    "alphax",
    "alph",
    "alpha/../beta",
    "alpha/..",
    "data",
    "data/",
    "loose.bin",
    "/",
  ]) {
    it(`prefix ${JSON.stringify(prefix)}`, async () => {
      expect(await list(MAP_ROLE, { prefix })).toBe("not found");
    });
  }
});

it("no prefix lists only the visible maps' assets", async () => {
  expect(await list(MAP_ROLE, {})).toEqual(["data/alpha/pic.bin", "data/alpha/sub/deep.bin"]);
});

it("assets carry no type: a typed role sees none, with or without a prefix", async () => {
  expect(await list(TYPED, { prefix: "alpha" })).toBe("not found");
  expect(await list(TYPED, {})).toEqual([]);
});

it("a whole-KB reader lists everything in the prefix folder, and nothing of a look-alike map", async () => {
  const reader = principal("reader", [{ kb: "main", access: "r" }]);
  expect(await list(reader, { prefix: "alpha" })).toEqual([
    "data/alpha/pic.bin",
    "data/alpha/sub/deep.bin",
  ]);
  expect(await list(reader, { prefix: "alphax" })).toEqual(["data/alphax/pic.bin"]);
});
