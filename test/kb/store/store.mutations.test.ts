import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { WritePlan } from "../../../src/kb/core/api.js";
import { contentHash } from "../../../src/kb/core/hash.js";
import { commitCount, fails, fixtureKb, gitIn, PNG, run, type TempKb } from "../helpers.js";

let kb: TempKb;
beforeEach(async () => {
  kb = await fixtureKb();
});
afterEach(async () => kb.cleanup());

/** Applies and commits a plan, asserting exactly one new commit named `<tool>: <target>`. */
async function once(plan: WritePlan | Promise<WritePlan>, tool: string): Promise<WritePlan> {
  const p = await plan;
  const before = commitCount(kb.root);
  const sha = await run(kb.store, p, tool);
  expect(sha).toMatch(/^[0-9a-f]{40}$/);
  expect(commitCount(kb.root)).toBe(before + 1);
  expect(gitIn(kb.root, ["log", "-1", "--format=%s"]).trim()).toBe(`${tool}: ${p.target}`);
  expect(gitIn(kb.root, ["status", "--porcelain"]).trim()).toBe("");
  return p;
}

describe("every mutation round-trips with exactly one commit", () => {
  it("write create/replace, patch, delete", async () => {
    await once(
      kb.store.planConceptWrite({
        id: "infra/nas",
        frontmatter: { type: "service", title: "NAS" },
        body: "# NAS\n",
        mode: "create",
      }),
      "concept_write",
    );
    const nas = await kb.store.readConcept("infra/nas");
    expect(nas.hash).toBe(contentHash((await kb.store.readText("data/infra/nas.md")) ?? ""));
    await fails(
      kb.store.planConceptWrite({
        id: "infra/nas",
        frontmatter: { type: "service" },
        body: "",
        mode: "create",
      }),
      "already_exists",
    );
    await once(
      kb.store.planConceptWrite({
        id: "infra/nas",
        frontmatter: { type: "service", title: "NAS 2" },
        body: "x",
        mode: "replace",
        ifMatch: nas.hash,
      }),
      "concept_write",
    );
    const current = (await kb.store.readConcept("infra/nas")).hash;
    await fails(
      kb.store.planConceptWrite({
        id: "infra/nas",
        frontmatter: { type: "service" },
        body: "y",
        mode: "upsert",
        ifMatch: nas.hash,
      }),
      "stale_write",
      current,
    );
    await once(
      kb.store.planConceptPatch({
        id: "infra/nas",
        frontmatter: { title: null, tags: ["a", "b"] },
      }),
      "concept_patch",
    );
    expect((await kb.store.readConcept("infra/nas")).frontmatter).toEqual({
      type: "service",
      tags: ["a", "b"],
    });
    await fails(
      kb.store.planConceptPatch({ id: "infra/nas", frontmatter: { type: null } }),
      "invalid_argument",
      "type",
    );
    await once(kb.store.planConceptDelete({ id: "infra/nas" }), "concept_delete");
    expect(await kb.store.tryReadConcept("infra/nas")).toBeNull();
  });

  it("ordered edits are atomic and name the failing edit", async () => {
    const gw = await kb.store.readConcept("infra/rete/gateway");
    await fails(
      kb.store.planConceptPatch({
        id: gw.id,
        edits: [
          { old_string: "homelab", new_string: "lab" },
          { old_string: "nope", new_string: "x" },
        ],
      }),
      "old_string_not_found",
      "edit 2: ",
    );
    await fails(
      kb.store.planConceptPatch({ id: gw.id, edits: [{ old_string: "1", new_string: "2" }] }),
      "old_string_ambiguous",
    );
    await once(
      kb.store.planConceptPatch({
        id: gw.id,
        edits: [{ old_string: "1", new_string: "2", replace_all: true }],
      }),
      "concept_patch",
    );
    expect((await kb.store.readConcept(gw.id)).body).toContain("20.20.0.2");
  });

  it("move rewrites links across the KB, and an expanded owner moves with its satellites", async () => {
    await once(
      kb.store.planConceptWrite({
        id: "infra/notes",
        frontmatter: { type: "note" },
        body: "See [[infra/rete/dns]], [gw](rete/gateway.md) and [net](rete/index.md).\n",
        mode: "create",
      }),
      "concept_write",
    );
    await once(
      kb.store.planConceptMove({
        moves: [{ from: "infra/rete", to: "infra/net" }],
        rewriteLinks: true,
      }),
      "concept_move",
    );
    const ids = (await kb.store.scanConceptFiles()).map((f) => f.id);
    expect(ids).toEqual(["infra/net", "infra/net/dns", "infra/net/gateway", "infra/notes"]);
    expect((await kb.store.readConcept("infra/notes")).body).toBe(
      "See [[infra/net/dns]], [gw](net/gateway.md) and [net](net/index.md).\n",
    );
    expect((await kb.store.assets()).map((a) => a.path)).toEqual(["data/infra/net/diagram.png"]);
    await once(
      kb.store.planConceptMove({
        moves: [{ from: "infra/notes", to: "misc/notes" }],
        rewriteLinks: true,
      }),
      "concept_move",
    );
    expect((await kb.store.readConcept("misc/notes")).body).toBe(
      "See [[infra/net/dns]], [gw](../infra/net/gateway.md) and [net](../infra/net/index.md).\n",
    );
    await fails(
      kb.store.planConceptMove({
        moves: [{ from: "misc/notes", to: "a/b/c/d" }],
        rewriteLinks: true,
      }),
      "invalid_id",
    );
  });

  it("expand, new from template, batch", async () => {
    await once(
      kb.store.planConceptWrite({
        id: "infra/nas",
        frontmatter: { type: "service" },
        body: "body\n",
        mode: "create",
      }),
      "concept_write",
    );
    await once(kb.store.planConceptExpand({ id: "infra/nas" }), "concept_expand");
    expect((await kb.store.readConcept("infra/nas")).path).toBe("data/infra/nas/index.md");
    await mkdir(join(kb.root, "templates"));
    await writeFile(
      join(kb.root, "templates/runbook.md"),
      "---\ntype: runbook\ntitle: {{title}}\n---\n# {{title}}\n\nOwner: {{owner}}\n",
    );
    gitIn(kb.root, ["add", "templates"]);
    gitIn(kb.root, ["commit", "-q", "-m", "template"]);
    expect(await kb.store.templates()).toEqual([
      { name: "runbook", variables: ["owner", "title"], path: "templates/runbook.md" },
    ]);
    await fails(
      kb.store.planConceptNew({
        id: "infra/rb",
        template: "runbook",
        variables: { title: "T", extra: "x" },
      }),
      "invalid_argument",
      "missing: owner; unknown: extra",
    );
    await once(
      kb.store.planConceptNew({
        id: "infra/rb",
        template: "runbook",
        variables: { title: "Reboot", owner: "ops" },
      }),
      "concept_new",
    );
    expect((await kb.store.readConcept("infra/rb")).body).toBe("# Reboot\n\nOwner: ops\n");
    const a = await kb.store.planConceptWrite({
      id: "infra/a",
      frontmatter: { type: "note" },
      body: "a",
      mode: "create",
    });
    const b = await kb.store.planConceptDelete({ id: "infra/rb" });
    await once(kb.store.planBatch([a, b], "2 operations"), "concept_batch");
    expect(() => kb.store.planBatch([a, a], "dup")).toThrow(/distinct|one operation per file/);
  });

  it("maps: the name services is reserved (it would shadow the KB-root services/ concepts)", async () => {
    await fails(
      kb.store.planMapCreate({ name: "services", kind: "map" }),
      "reserved_name",
      "reserved",
    );
  });

  it("maps: create (strict palette, required fields), delete only when empty", async () => {
    await once(
      kb.store.planMapCreate({
        name: "ops",
        kind: "map",
        ontologyMode: "strict",
        conceptTypes: ["runbook"],
        requiredFields: ["owner"],
      }),
      "map_create",
    );
    await fails(
      kb.store.planConceptWrite({
        id: "ops/x",
        frontmatter: { type: "note", owner: "me" },
        body: "",
        mode: "create",
      }),
      "validation_failed",
      'map "ops"',
    );
    await fails(
      kb.store.planConceptWrite({
        id: "ops/x",
        frontmatter: { type: "runbook" },
        body: "",
        mode: "create",
      }),
      "validation_failed",
      "owner",
    );
    await once(
      kb.store.planConceptWrite({
        id: "ops/x",
        frontmatter: { type: "runbook", owner: "me" },
        body: "",
        mode: "create",
      }),
      "concept_write",
    );
    await fails(
      kb.store.planConceptPatch({ id: "ops/x", frontmatter: { type: "note" } }),
      "validation_failed",
      "allowed types: runbook",
    );
    await fails(
      kb.store.planConceptMove({
        moves: [{ from: "infra/rete/dns", to: "ops/dns" }],
        rewriteLinks: true,
      }),
      "validation_failed",
    );
    await fails(kb.store.planMapDelete({ name: "ops" }), "not_empty", "data/ops/x.md");
    await once(kb.store.planConceptDelete({ id: "ops/x" }), "concept_delete");
    await once(kb.store.planMapDelete({ name: "ops" }), "map_delete");
    expect((await kb.store.maps()).map((m) => m.name)).toEqual(["infra"]);
  });

  it("index patch, log append (newest first), skills, snapshot", async () => {
    const idx = contentHash((await kb.store.readText("data/index.md")) ?? "");
    await once(
      kb.store.planIndexPatch({ scope: null, append: "- [[infra/rete]]", ifMatch: idx }),
      "index_patch",
    );
    await fails(kb.store.planIndexPatch({ scope: null, append: "x", ifMatch: idx }), "stale_write");
    await once(
      kb.store.planIndexPatch({
        scope: "infra",
        edits: [{ old_string: "# Infra", new_string: "# Infra map" }],
      }),
      "index_patch",
    );
    await once(
      kb.store.planLogAppend({ scope: null, entry: "first", at: new Date("2024-01-01T00:00:00Z") }),
      "log_append",
    );
    await once(
      kb.store.planLogAppend({
        scope: "infra",
        entry: "second",
        at: new Date("2024-01-02T00:00:00Z"),
      }),
      "log_append",
    );
    await once(
      kb.store.planLogAppend({ scope: null, entry: "third", at: new Date("2024-01-03T00:00:00Z") }),
      "log_append",
    );
    expect(await kb.store.readText("data/log.md")).toBe(
      "# Log\n\n## 2024-01-03T00:00:00Z\n\nthird\n\n## 2024-01-01T00:00:00Z\n\nfirst\n",
    );
    await once(
      kb.store.planSkillInstall({
        name: "demo",
        files: { "SKILL.md": "---\nname: demo\ndescription: A demo\n---\n# Demo\n" },
      }),
      "skill_install",
    );
    expect((await kb.store.skills()).map((s) => s.name)).toContain("demo");
    const snap = await kb.store.snapshot("before-cleanup");
    expect(snap.tag).toBe("snapshot/before-cleanup");
    await fails(kb.store.snapshot("before-cleanup"), "already_exists");
  });

  it("assets and artifacts: size, path rules, raw-sha256 if_match, linked-asset delete needs force", async () => {
    const [asset] = await kb.store.assets("infra/rete");
    await fails(
      kb.store.planAssetWrite({
        path: "infra/rete/diagram.png",
        bytes: PNG,
        ifMatch: "0".repeat(64),
      }),
      "stale_write",
      asset?.hash,
    );
    await once(
      kb.store.planAssetWrite({
        path: "infra/rete/diagram.png",
        bytes: new Uint8Array([1, 2]),
        ifMatch: asset?.hash,
      }),
      "asset_write",
    );
    await fails(
      kb.store.planAssetWrite({ path: "x/big.bin", bytes: new Uint8Array(1024 * 1024 + 1) }),
      "too_large",
    );
    await fails(kb.store.planAssetWrite({ path: "x/readme.md", bytes: PNG }), "invalid_argument");
    await fails(kb.store.planAssetWrite({ path: "x/.hidden", bytes: PNG }), "invalid_argument");
    await fails(kb.store.planAssetWrite({ path: "../escape.png", bytes: PNG }), "invalid_argument");
    await once(
      kb.store.planConceptPatch({
        id: "infra/rete",
        edits: [{ old_string: "# Network", new_string: "# Network\n\n![d](diagram.png)" }],
      }),
      "concept_patch",
    );
    await fails(
      kb.store.planAssetDelete({ path: "data/infra/rete/diagram.png" }),
      "conflict",
      "infra/rete/index.md",
    );
    await once(
      kb.store.planAssetDelete({ path: "data/infra/rete/diagram.png", force: true }),
      "asset_delete",
    );
    await once(
      kb.store.planArtifactWrite({
        path: "mcp/report.json",
        bytes: new TextEncoder().encode("{}"),
      }),
      "artifact_write",
    );
    expect((await kb.store.artifacts()).map((a) => a.path)).toEqual([
      "mcp/report.json",
      "skills/kbinfra--query-rete/SKILL.md", // the fixture's own skill
    ]);
    await fails(
      kb.store.planArtifactWrite({
        path: "skills/x/big.bin",
        bytes: new Uint8Array(256 * 1024 + 1),
      }),
      "too_large",
    );
    await once(kb.store.planArtifactDelete({ path: "mcp/report.json" }), "artifact_delete");
  });

  it("changesSince folds git history per concept", async () => {
    const since = new Date(Date.now() - 60_000);
    await once(
      kb.store.planConceptWrite({
        id: "infra/nas",
        frontmatter: { type: "service" },
        body: "a",
        mode: "create",
      }),
      "concept_write",
    );
    await once(
      kb.store.planConceptPatch({
        id: "infra/rete/dns",
        edits: [{ old_string: "Pi-hole", new_string: "Unbound" }],
      }),
      "concept_patch",
    );
    await once(
      kb.store.planConceptMove({
        moves: [{ from: "infra/rete/gateway", to: "infra/gw" }],
        rewriteLinks: false,
      }),
      "concept_move",
    );
    await once(kb.store.planConceptDelete({ id: "infra/nas" }), "concept_delete");
    const changes = await kb.store.changesSince(since);
    const byId = Object.fromEntries(changes.map((c) => [c.id, c]));
    expect(byId["infra/rete/dns"]?.change).toBe("modified");
    expect(byId["infra/gw"]).toMatchObject({
      change: "moved",
      from: "infra/rete/gateway",
      authors: ["Kb Test"],
    });
    expect(byId["infra/nas"]?.change).toBe("deleted");
    expect(byId["infra/nas"]?.subjects).toEqual([
      "concept_delete: infra/nas",
      "concept_write: infra/nas",
    ]);
  });
});
