import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { freshKb } from "../helpers.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

describe("map descriptors cache", () => {
  it("serves repeated reads from the cache and sees an edit made outside the server", async () => {
    const kb = await freshKb();
    cleanups.push(kb.cleanup);
    const store = kb.store;
    await store.apply(
      await store.planMapCreate({ name: "infra", kind: "map", conceptTypes: ["note"] }),
    );
    const first = await store.maps();
    expect(await store.maps()).toBe(first); // same promise result object: no re-read
    expect(first.map((m) => m.conceptTypes)).toEqual([["note"]]);

    const path = join(kb.root, "data", "infra", "_map.md");
    writeFileSync(
      path,
      "---\ntype: Map\ntitle: Infra\nkind: journal\nconcept_types: [note, runbook]\n---\n# Infra\n",
    );
    const after = await store.maps();
    expect(after.map((m) => [m.kind, m.conceptTypes])).toEqual([["journal", ["note", "runbook"]]]);
  });
});
