import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isKbError } from "../../../src/common/errors.js";
import { commitCount, fixtureKb, gitIn, PNG, run, type TempKb } from "../helpers.js";

let kb: TempKb;
beforeEach(async () => {
  kb = await fixtureKb();
});
afterEach(async () => kb.cleanup());

describe("the Go fixture KB", () => {
  it("opens with the legacy _archive.md read as map infra", async () => {
    const maps = await kb.store.maps();
    expect(maps.map((m) => [m.name, m.kind, m.legacy, m.ontologyMode])).toEqual([
      ["infra", "map", true, "emergent"],
    ]);
    expect(maps[0]?.conceptTypes).toEqual(["service", "note", "runbook"]);
  });

  it("walks the expanded owner and its satellites, nothing else", async () => {
    const files = await kb.store.scanConceptFiles();
    expect(files.map((f) => [f.id, f.path])).toEqual([
      ["infra/rete", "data/infra/rete/index.md"],
      ["infra/rete/dns", "data/infra/rete/dns.md"],
      ["infra/rete/gateway", "data/infra/rete/gateway.md"],
    ]);
    const docs = await kb.store.listConcepts();
    expect(docs.map((d) => [d.id, d.type, d.expanded, d.map])).toEqual([
      ["infra/rete", "Index", true, "infra"],
      ["infra/rete/dns", "note", false, "infra"],
      ["infra/rete/gateway", "service", false, "infra"],
    ]);
  });

  it("reads a concept with a blank line after --- and lists skills and the asset", async () => {
    const gw = await kb.store.readConcept("infra/rete/gateway");
    expect(gw.title).toBe("Network gateway");
    expect(gw.body).toContain("10.10.0.1");
    expect((await kb.store.skills()).map((s) => s.name)).toEqual(["kbinfra--query-rete"]);
    const assets = await kb.store.assets();
    expect(assets.map((a) => [a.path, a.size])).toEqual([
      ["data/infra/rete/diagram.png", PNG.length],
    ]);
    await expect(kb.store.readConcept("infra/nothing")).rejects.toSatisfy((e) =>
      isKbError(e, "not_found"),
    );
    await expect(kb.store.readConcept("index")).rejects.toSatisfy((e) =>
      isKbError(e, "invalid_id"),
    );
  });

  it("accepts a patch that keeps the untouched lines byte for byte and commits once", async () => {
    const before = commitCount(kb.root);
    const gw = await kb.store.readConcept("infra/rete/gateway");
    const plan = await kb.store.planConceptPatch({
      id: gw.id,
      ifMatch: gw.hash,
      edits: [{ old_string: "main router", new_string: "main router, VLAN 10" }],
    });
    await run(kb.store, plan, "concept_patch");
    expect(commitCount(kb.root)).toBe(before + 1);
    const text = await kb.store.readText("data/infra/rete/gateway.md");
    expect(text).toBe(
      "---\n\ntype: service\ntitle: Network gateway\n---\nThe homelab network gateway is **10.10.0.1** (main router, VLAN 10).\n",
    );
    expect(gitIn(kb.root, ["log", "-1", "--format=%an <%ae>|%cn|%s"]).trim()).toBe(
      "Kb Test <kb-test@cartographer.invalid>|Kb Test|concept_patch: infra/rete/gateway",
    );
  });

  it("refuses a write when both <id>.md and <id>/index.md exist, and walks services/", async () => {
    await writeFile(join(kb.root, "data/infra/rete.md"), "---\ntype: note\n---\nflat\n");
    await mkdir(join(kb.root, "services"));
    await writeFile(join(kb.root, "services/db.md"), "---\ntype: service\n---\ndb\n");
    expect((await kb.store.readConcept("infra/rete")).path).toBe("data/infra/rete.md");
    await expect(
      kb.store.planConceptPatch({ id: "infra/rete", frontmatter: { title: "x" } }),
    ).rejects.toSatisfy((e) => isKbError(e, "expanded_ambiguous"));
    const ids = (await kb.store.listConcepts()).map((d) => [d.id, d.map]);
    expect(ids).toContainEqual(["services/db", null]);
  });
});
