import { afterEach, describe, expect, it } from "vitest";
import { freshKb, run, type TempKb } from "../helpers.js";

let kb: TempKb | null = null;
afterEach(async () => {
  await kb?.cleanup();
  kb = null;
});

describe("changesSince and maps", () => {
  it("never reports a map's own index.md as a concept, even after the map is deleted", async () => {
    kb = await freshKb();
    const since = new Date(Date.now() - 60_000);
    await run(kb.store, await kb.store.planMapCreate({ name: "j", kind: "journal" }), "map_create");
    const note = await kb.store.planConceptWrite({
      id: "j/entry",
      frontmatter: { type: "note" },
      body: "x",
      mode: "create",
    });
    await run(kb.store, note, "concept_write");
    await run(kb.store, await kb.store.planConceptDelete({ id: "j/entry" }), "concept_delete");
    await run(kb.store, await kb.store.planMapDelete({ name: "j" }), "map_delete");
    const ids = (await kb.store.changesSince(since)).map((c) => c.id);
    expect(ids).toEqual(["j/entry"]);
  });
});
