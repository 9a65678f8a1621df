/**
 * The rooms of src/ show their parts (README "Layout", docs/design.md §3): the KB data plane has
 * no loose files, only named rooms; the MCP layer holds the protocol and no KB lifecycle (that
 * is src/runtime); the client's share of server code is src/common alone (layers.test.ts).
 */
import { readdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "./sources.js";

const KB_ROOMS = ["core", "store", "locks", "git", "secrets", "sync", "import"];
/** File names that mean a mounted KB's lifecycle, which lives in src/runtime. */
const LIFECYCLE = /^(mount|index-build|kb-status|kb-runtime)/;

function entries(rel: string) {
  return readdirSync(path.join(REPO_ROOT, rel), { withFileTypes: true });
}

describe("rooms of src/", () => {
  it("src/kb holds only its named rooms", () => {
    const loose = entries("src/kb").filter((e) => e.isFile() || !KB_ROOMS.includes(e.name));
    expect(loose.map((e) => e.name)).toEqual([]);
  });

  it("src/mcp holds no KB lifecycle module", () => {
    const lifecycle = entries("src/mcp").filter((e) => e.isFile() && LIFECYCLE.test(e.name));
    expect(lifecycle.map((e) => e.name)).toEqual([]);
  });

  it("the lifecycle modules are in src/runtime", () => {
    const names = entries("src/runtime").map((e) => e.name);
    for (const name of ["mount.ts", "index-build.ts", "kb-status.ts", "kb-runtime.ts"])
      expect(names).toContain(name);
  });
});
