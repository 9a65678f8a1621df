import { afterEach, describe, expect, it } from "vitest";
import { isKbError } from "../../../src/common/errors.js";
import { freshKb, type TempKb } from "../helpers.js";

let kb: TempKb | null = null;
afterEach(async () => {
  await kb?.cleanup();
  kb = null;
});

async function code(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return "ok";
  } catch (e) {
    return isKbError(e) ? e.code : "other";
  }
}

describe("if_match on a target that no longer exists", () => {
  it("is stale_write, so a write racing a delete never silently recreates the concept", async () => {
    kb = await freshKb();
    const write = (ifMatch?: string) =>
      kb?.store.planConceptWrite({
        id: "gone",
        frontmatter: { type: "note" },
        body: "x",
        ifMatch,
        mode: "upsert",
      }) as Promise<unknown>;
    expect(await code(write("0".repeat(64)))).toBe("stale_write");
    expect(await code(write())).toBe("ok");
  });

  it("applies to assets too", async () => {
    kb = await freshKb();
    const bytes = new Uint8Array([1, 2, 3]);
    expect(
      await code(kb.store.planAssetWrite({ path: "data/pic.bin", bytes, ifMatch: "0".repeat(64) })),
    ).toBe("stale_write");
    expect(await code(kb.store.planAssetWrite({ path: "data/pic.bin", bytes }))).toBe("ok");
  });
});
