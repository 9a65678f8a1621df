/**
 * Every read tool (and the governance reads) serves the Go implementation's fixture KB
 * unchanged: a copy of go-kb-homelab-lite, git-initialized, opened as-is.
 */

import { cp } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { governanceTools } from "../../../src/tools/families/governance.js";
import { graphTools } from "../../../src/tools/families/graph.js";
import { readTools } from "../../../src/tools/families/read.js";
import type { ToolSpec } from "../../../src/tools/spec.js";
import { callTool } from "../../support/call-tool.js";
import { GO_FIXTURE_KB } from "../../support/fixture.js";
import { git } from "../../support/kb.js";
import { useTempDirs } from "../../support/temp-dir.js";
import { makeTempKb, type TempKb, tool } from "../../support/tool-kb.js";

const FIXTURE = GO_FIXTURE_KB;
const ALL: ToolSpec[] = [...readTools, ...graphTools, ...governanceTools];

const newDir = useTempDirs("carto-fixture-", "file");
let kb: TempKb;
const call = (name: string, args: Record<string, unknown> = {}) =>
  // biome-ignore lint/suspicious/noExplicitAny: tool results are plain JSON, checked field by field
  callTool(kb.runtime, tool(ALL, name), args) as Promise<any>;

beforeAll(async () => {
  const root = join(newDir(), "kb");
  await cp(FIXTURE, root, { recursive: true });
  git(root, ["init", "-q", "-b", "main"]);
  git(root, ["add", "-A"]);
  git(root, ["commit", "-q", "-m", "fixture"]);
  kb = await makeTempKb({ existingRoot: root });
});
afterAll(async () => {
  await kb?.cleanup();
});

describe("the Go fixture KB", () => {
  it("atlas_overview and map_list see the legacy _archive.md map", async () => {
    const atlas = await call("atlas_overview");
    expect(atlas.maps).toEqual([{ name: "infra", kind: "map", title: "Infra", concepts: 3 }]);
    const maps = await call("map_list");
    expect(maps.maps[0]).toMatchObject({
      name: "infra",
      concept_types: ["service", "note", "runbook"],
      ontology_mode: "emergent",
    });
  });

  it("concept_read reads a concept with a blank line after ---", async () => {
    const r = await call("concept_read", { id: "infra/rete/gateway" });
    expect(r.frontmatter).toEqual({ type: "service", title: "Network gateway" });
    expect(r.body).toContain("10.10.0.1");
    const expanded = await call("concept_read", { id: "infra/rete" });
    expect(expanded.expanded).toBe(true);
  });

  it("concept_list, search and index_get answer", async () => {
    const list = await call("concept_list", { map: "infra" });
    expect(list.items.map((i: { id: string }) => i.id)).toEqual([
      "infra/rete",
      "infra/rete/dns",
      "infra/rete/gateway",
    ]);
    const hits = await call("search", { query: "gateway" });
    expect(hits.results[0].id).toBe("infra/rete/gateway");
    expect((await call("index_get")).content).toContain("KB initialized");
    expect((await call("index_get", { scope: "infra" })).path).toBe("data/infra/index.md");
  });

  it("log_tail on the empty Go logs answers a note", async () => {
    expect(await call("log_tail")).toMatchObject({ entries: [], note: "log is empty" });
    expect(await call("log_tail", { scope: "infra" })).toMatchObject({ entries: [] });
  });

  it("graph_neighbors, changes_since and template_list answer", async () => {
    const g = await call("graph_neighbors", { id: "infra/rete/dns" });
    expect(g).toMatchObject({ id: "infra/rete/dns", neighbors: [], total: 0 });
    const changes = await call("changes_since", { since: "1d" });
    expect(changes.changes.map((c: { id: string }) => c.id).sort()).toEqual([
      "infra/rete",
      "infra/rete/dns",
      "infra/rete/gateway",
    ]);
    expect(await call("template_list")).toEqual({ templates: [] });
  });

  it("lint reports Go's migration backlog: the legacy _archive.md, nothing else of Go's", async () => {
    const lint = await call("lint", {
      checks: ["legacy_archive_descriptor", "imported_draft", "contract_malformed", "machine_path"],
    });
    expect(lint.issues).toEqual([
      {
        check: "legacy_archive_descriptor",
        severity: "warning",
        path: "data/infra/_archive.md",
        message:
          "legacy _archive.md descriptor: rewrite it as _map.md with a kind (map or journal)",
      },
    ]);
  });

  it("validate passes, lint and gate_check run, kb_status and commit_gate report", async () => {
    expect(await call("validate")).toMatchObject({ checked: 3, valid: true });
    const lint = await call("lint");
    expect(lint.errors).toBe(0);
    expect((await call("gate_check")).pass).toBe(true);
    expect(await call("kb_status")).toMatchObject({ concepts: 3, git: { dirty: false } });
    expect((await call("commit_gate")).clean).toBe(true);
    expect(await call("contradiction_report")).toEqual({ contradictions: [], total: 0 });
  });
});
