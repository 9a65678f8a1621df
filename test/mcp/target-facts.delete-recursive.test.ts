/**
 * A recursive concept_delete is authorized on every file it removes: a role typed to `note`
 * may delete a folder of notes, but a satellite of another type (or an asset) inside makes the
 * call fail with nothing deleted.
 */
import { access } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Principal } from "../../src/auth/types.js";
import { silentLogger } from "../../src/logger.js";
import type { KbSurface } from "../../src/mcp/kb-surface.js";
import { surfaceForMount } from "../../src/mcp/surface-for-mount.js";
import type { MountedKb } from "../../src/runtime/mount.js";
import { outcome, run, seedMain } from "../support/authz.js";
import { principal, type TempMounts, tempMounts } from "../support/mcp-kit.js";

let kbs: TempMounts;
let main: MountedKb;
let surface: KbSurface;

const TYPED: Principal = principal("typed", [
  { kb: "main", access: "rw", maps: ["alpha"], types: ["note"] },
]);

const note = (id: string, type = "note") =>
  run(main, "concept_write", { id, frontmatter: { type, title: id }, body: "x\n" });

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
  await expanded("alpha/box-mixed", { plan: "note", "secret-task": "task" });
  await expanded("alpha/box-notes", { one: "note", two: "note" });
  await expanded("alpha/box-asset", { one: "note" }, true);
  surface = surfaceForMount(main, { logger: silentLogger });
}, 30_000);
afterAll(async () => {
  await kbs?.cleanup();
});

const del = async (id: string) =>
  outcome(
    await surface.callTool(
      "concept_delete",
      { id, recursive: true },
      { principal: TYPED, transport: "in-memory", requestId: "" },
    ),
  );
const onDisk = (path: string) =>
  access(join(main.settings.root, path)).then(
    () => true,
    () => false,
  );

describe("recursive concept_delete under a typed role", () => {
  it("deletes a folder holding only its type", async () => {
    const got = await del("alpha/box-notes");
    expect(got.isError, got.text).toBe(false);
    expect(await onDisk("data/alpha/box-notes")).toBe(false);
  });

  it("refuses a folder with a satellite of another type, deleting nothing", async () => {
    const got = await del("alpha/box-mixed");
    expect(got.isError).toBe(true);
    expect(got.text).toMatch(/^(forbidden|not found)/);
    expect(await onDisk("data/alpha/box-mixed/secret-task.md")).toBe(true);
    expect(await onDisk("data/alpha/box-mixed/index.md")).toBe(true);
  });

  it("refuses a folder holding an asset a typed role could not write", async () => {
    const got = await del("alpha/box-asset");
    expect(got.isError).toBe(true);
    expect(await onDisk("data/alpha/box-asset/pic.bin")).toBe(true);
  });
});
