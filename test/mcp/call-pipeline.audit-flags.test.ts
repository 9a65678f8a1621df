/**
 * The audit records a destructive call's behaviour-changing flags next to its ids (recursive,
 * variant, rewrite_links), never the content it carried.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/logger.js";
import { surfaceForMount } from "../../src/mcp/surface-for-mount.js";
import type { MountedKb } from "../../src/runtime/mount.js";
import { callSurface } from "../support/call-tool.js";
import { MemoryAudit, must, type TempMounts, tempMounts } from "../support/mcp-kit.js";

let kbs: TempMounts;
let main: MountedKb;
beforeAll(async () => {
  kbs = await tempMounts(["main"]);
  main = must(kbs.byName.main);
});
afterAll(async () => kbs?.cleanup());

async function call(name: string, args: Record<string, unknown>) {
  const audit = new MemoryAudit();
  const result = await callSurface(
    surfaceForMount(main, { audit, logger: silentLogger }),
    name,
    args,
  );
  expect(result.isError, JSON.stringify(result)).toBeUndefined();
  return audit.records;
}

describe("audit resources of destructive calls", () => {
  it("concept_delete records recursive next to the id, in attempt and completion", async () => {
    const write = (id: string) =>
      call("concept_write", { id, frontmatter: { type: "note" }, body: "SECRET-BODY\n" });
    await write("box");
    await call("concept_expand", { id: "box" });
    await write("box/part");
    const records = await call("concept_delete", { id: "box", recursive: true });
    expect(records.map((r) => r.resources)).toEqual([
      { id: "box", recursive: true },
      { id: "box", recursive: true },
    ]);
  });

  it("concept_move records rewrite_links; a flag left out is not invented", async () => {
    await call("concept_write", { id: "m1", frontmatter: { type: "note" }, body: "SECRET\n" });
    const off = await call("concept_move", { from: "m1", to: "m2", rewrite_links: false });
    expect(off[0]?.resources).toEqual({ from: "m1", to: "m2", rewrite_links: false });
    const dflt = await call("concept_move", { from: "m2", to: "m3" });
    expect(dflt[0]?.resources).toEqual({ from: "m2", to: "m3" });
    expect(JSON.stringify([off, dflt])).not.toContain("SECRET");
  });
});
