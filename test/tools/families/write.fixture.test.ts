import { execFileSync } from "node:child_process";
import { chmod, cp, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { indexTools } from "../../../src/tools/families/index-tools.js";
import { mapTools } from "../../../src/tools/families/maps.js";
import { writeTools } from "../../../src/tools/families/write.js";
import { callTool } from "../../support/call-tool.js";
import { GO_FIXTURE_KB } from "../../support/fixture.js";
import { git } from "../../support/kb.js";
import { useTempDirs } from "../../support/temp-dir.js";
import {
  commitCount,
  GIT_ENV,
  headSubject,
  makeTempKb,
  type TempKb,
  tool,
} from "../../support/tool-kb.js";

const FIXTURE = GO_FIXTURE_KB;

const newDir = useTempDirs("carto-fixture-", "file");
let kb: TempKb;
beforeAll(async () => {
  const root = join(newDir(), "kb");
  await cp(FIXTURE, root, { recursive: true });
  execFileSync("chmod", ["-R", "u+w", root]);
  await chmod(root, 0o755);
  git(root, ["init", "-q", "-b", "main"]);
  git(root, ["add", "-A"]);
  git(root, ["commit", "-q", "-m", "fixture"]);
  kb = await makeTempKb({ existingRoot: root });
});
afterAll(async () => {
  await kb?.cleanup();
});

describe("the Go fixture KB accepts writes", () => {
  it("writes into the legacy _archive.md map, patches the expanded concept's child, one commit each", async () => {
    const before = commitCount(kb.root);
    await callTool(kb.runtime, tool(writeTools, "concept_write"), {
      id: "infra/rete/vpn",
      frontmatter: { type: "service", title: "VPN" },
      body: "WireGuard on the gateway: [[infra/rete/gateway]].\n",
    });
    expect(commitCount(kb.root)).toBe(before + 1);
    const gateway = await kb.runtime.store.readConcept("infra/rete/gateway");
    await callTool(kb.runtime, tool(writeTools, "concept_patch"), {
      id: "infra/rete/gateway",
      old_string: "(main router)",
      new_string: "(main router, also VPN endpoint)",
      if_match: gateway.hash,
    });
    expect(commitCount(kb.root)).toBe(before + 2);
    expect(headSubject(kb.root)).toBe("concept_patch: infra/rete/gateway");
    expect((await kb.runtime.store.readConcept("infra/rete/gateway")).body).toContain(
      "also VPN endpoint",
    );
    await callTool(kb.runtime, tool(mapTools, "log_append"), {
      scope: "infra",
      entry: "Added the VPN.",
    });
    expect(commitCount(kb.root)).toBe(before + 3);
    const status = execFileSync("git", ["status", "--porcelain"], {
      cwd: kb.root,
      env: GIT_ENV,
    }).toString();
    expect(status).toBe("");
  });

  it("index_rebuild and reindex bring the index in line with the disk", async () => {
    const rebuilt = (await callTool(kb.runtime, tool(indexTools, "index_rebuild"), {})) as {
      total: number;
    };
    const concepts = await kb.runtime.store.scanConceptFiles();
    expect(rebuilt.total).toBe(concepts.length);
    const reconciled = (await callTool(kb.runtime, tool(indexTools, "reindex"), {})) as Record<
      string,
      number
    >;
    expect(reconciled).toMatchObject({ added: 0, removed: 0, changed: 0, total: concepts.length });
    const hits = kb.runtime.index.search({
      query: "WireGuard",
      limit: 5,
      visibility: { all: true },
    });
    expect(hits.results.map((h) => h.id)).toEqual(["infra/rete/vpn"]);
  });

  it("reindex picks up a concept written outside the tools", async () => {
    await writeFile(
      join(kb.root, "data/infra/rete/ntp.md"),
      "---\ntype: service\n---\nChrony time server.\n",
    );
    const stats = (await callTool(kb.runtime, tool(indexTools, "reindex"), {})) as Record<
      string,
      number
    >;
    expect(stats.added).toBe(1);
    const hits = kb.runtime.index.search({ query: "Chrony", limit: 5, visibility: { all: true } });
    expect(hits.results.map((h) => h.id)).toEqual(["infra/rete/ntp"]);
  });
});
