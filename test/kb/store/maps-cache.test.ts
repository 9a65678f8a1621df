import { mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { KbStore } from "../../../src/kb/core/api.js";
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

/** A concept read's placement comes from its own map's cache entry (maps-cache.ts forId). */
describe("a concept read's map", () => {
  const JOURNAL = "---\ntype: Map\ntitle: Infra\nkind: journal\nconcept_types: [note]\n---\n";

  async function kbWithConcept() {
    const kb = await freshKb();
    cleanups.push(kb.cleanup);
    const store = kb.store;
    await store.apply(
      await store.planMapCreate({ name: "infra", kind: "map", conceptTypes: ["note"] }),
    );
    mkdirSync(join(kb.root, "data", "infra", "net"), { recursive: true });
    writeFileSync(join(kb.root, "data", "infra", "net", "gw.md"), "---\ntype: note\n---\nGW\n");
    return kb;
  }

  const placement = async (kb: { store: KbStore }, id: string) => {
    const read = await kb.store.readConceptFile(id, Number.POSITIVE_INFINITY);
    return read && { map: read.doc.map, journal: read.doc.journal };
  };

  it("places the concept as the full map list does, and sees a descriptor replaced outside", async () => {
    const kb = await kbWithConcept();
    expect(await placement(kb, "infra/net/gw")).toEqual({ map: "infra", journal: null });
    const full = await kb.store.maps();
    expect(full.map((m) => m.name)).toEqual(["infra"]);

    // Replaced by rename (a checkout does this): new inode, whatever the size and times.
    const descriptor = join(kb.root, "data", "infra", "_map.md");
    writeFileSync(`${descriptor}.tmp`, JOURNAL);
    renameSync(`${descriptor}.tmp`, descriptor);
    expect(await placement(kb, "infra/net/gw")).toEqual({ map: null, journal: "infra" });

    // Removed: the folder is no map any more.
    rmSync(descriptor);
    expect(await placement(kb, "infra/net/gw")).toEqual({ map: null, journal: null });
    expect(await kb.store.maps()).toEqual([]);
  });

  it("sees a map folder renamed, and another folder renamed into its place", async () => {
    const kb = await kbWithConcept();
    expect(await placement(kb, "infra/net/gw")).toEqual({ map: "infra", journal: null });
    const data = join(kb.root, "data");
    renameSync(join(data, "infra"), join(data, "ops"));
    expect(await placement(kb, "infra/net/gw")).toBeNull();
    expect(await placement(kb, "ops/net/gw")).toEqual({ map: "ops", journal: null });

    mkdirSync(join(data, "infra", "net"), { recursive: true });
    writeFileSync(join(data, "infra", "_map.md"), JOURNAL);
    writeFileSync(join(data, "infra", "net", "gw.md"), "---\ntype: note\n---\nGW\n");
    expect(await placement(kb, "infra/net/gw")).toEqual({ map: null, journal: "infra" });
    expect((await kb.store.maps()).map((m) => [m.name, m.kind])).toEqual([
      ["infra", "journal"],
      ["ops", "map"],
    ]);
  });

  it("a map folder that became a symlink places nothing, as the map list skips it", async () => {
    const kb = await kbWithConcept();
    expect(await placement(kb, "infra/net/gw")).toEqual({ map: "infra", journal: null });
    const data = join(kb.root, "data");
    renameSync(join(data, "infra"), join(data, "real"));
    symlinkSync(join(data, "real"), join(data, "infra"));
    expect((await kb.store.maps()).map((m) => m.name)).toEqual(["real"]);
    expect(await placement(kb, "infra/net/gw")).toEqual({ map: null, journal: null });
  });
});
