import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Visibility } from "../../../src/kb/core/types.js";
import { governanceTools } from "../../../src/tools/families/governance.js";
import { callTool } from "../../support/call-tool.js";
import {
  commitCount,
  expectKbError,
  headSubject,
  makeTempKb,
  type TempKb,
  tool,
} from "../../support/tool-kb.js";

const doc = (type: string, extra = "", body = "text") =>
  `---\ntype: ${type}\n${extra}---\n${body}\n`;
const call = (kb: TempKb, name: string, args: Record<string, unknown>, visibility?: Visibility) =>
  // biome-ignore lint/suspicious/noExplicitAny: tool results are plain JSON, checked field by field
  callTool(kb.runtime, tool(governanceTools, name), args, { visibility }) as Promise<any>;

describe("validate and gate_check", () => {
  let kb: TempKb;
  beforeAll(async () => {
    kb = await makeTempKb({
      files: {
        "data/s/_map.md":
          "---\ntype: Map\nkind: map\nontology_mode: strict\nconcept_types: [service]\n---\n",
        "data/s/ok.md": doc("service", "", "linked from [[s/bad]]"),
        "data/s/bad.md": doc("note", "", "wrong type for a strict map, see [[s/ok]]"),
      },
    });
  });
  afterAll(async () => kb.cleanup());

  it("validate of one valid id passes; of a palette break names the allowed types", async () => {
    expect(await call(kb, "validate", { id: "s/ok" })).toMatchObject({ checked: 1, valid: true });
    const bad = await call(kb, "validate", { id: "s/bad" });
    expect(bad.valid).toBe(false);
    expect(bad.problems[0]).toMatchObject({ id: "s/bad", code: "validation_failed" });
    expect(bad.problems[0].message).toContain("allowed types: service");
  });

  it("validate of the whole KB checks every concept; a missing id is not_found", async () => {
    const all = await call(kb, "validate", {});
    expect(all.checked).toBe(2);
    expect(all.problems.map((p: { id: string }) => p.id)).toEqual(["s/bad"]);
    await expectKbError(() => call(kb, "validate", { id: "s/none" }), "not_found");
  });

  it("gate_check fails on a validation problem and passes once it is fixed", async () => {
    const before = await call(kb, "gate_check", {});
    expect(before.pass).toBe(false);
    expect(before.failures[0]).toMatchObject({ source: "validate", id: "s/bad" });
    await writeFile(join(kb.root, "data/s/bad.md"), doc("service", "", "fixed, see [[s/ok]]"));
    const after = await call(kb, "gate_check", {});
    expect(after).toMatchObject({ pass: true, validation_problems: 0, lint_errors: 0 });
  });
});

describe("kb_status and commit_gate", () => {
  let kb: TempKb;
  beforeAll(async () => {
    kb = await makeTempKb({ files: { "data/a.md": doc("note") } });
  });
  afterAll(async () => kb.cleanup());

  it("kb_status reports counts, git state and capabilities", async () => {
    const s = await call(kb, "kb_status", {});
    expect(s).toMatchObject({
      name: "test",
      concepts: 1,
      index: { count: 1, in_sync: true },
      git: { dirty: false, dirty_files: [] },
      capabilities: { artifact_write: false, autocommit: true },
    });
    expect(s.git.head).toMatch(/^[0-9a-f]{40}$/);
  });

  it("commit_gate is clean after a commit and lists uncommitted files", async () => {
    const clean = await call(kb, "commit_gate", {});
    expect(clean).toMatchObject({ clean: true, total: 0 });
    expect(clean.note).toMatch(/nothing to commit/);
    await writeFile(join(kb.root, "data/b.md"), doc("note"));
    const dirty = await call(kb, "commit_gate", {});
    expect(dirty.clean).toBe(false);
    expect(dirty.would_commit.join(" ")).toContain("data/b.md");
  });
});

describe("contradictions", () => {
  let kb: TempKb;
  const ONLY_A: Visibility = { all: false, rules: [{ maps: ["a"], journals: [], types: [] }] };
  beforeAll(async () => {
    kb = await makeTempKb({
      files: {
        "data/a/_map.md": "---\ntype: Map\nkind: map\n---\n",
        "data/b/_map.md": "---\ntype: Map\nkind: map\n---\n",
        "data/a/x.md": doc("note", "contradicts: a/y\n"),
        "data/a/y.md": doc("note"),
        "data/a/p.md": doc("note", "superseded_by: a/q\n"),
        "data/a/q.md": doc("note", "superseded_by: a/p\n"),
        "data/a/z.md": doc("note", "conflicts_with: [b/secret]\n"),
        "data/b/secret.md": doc("note"),
      },
    });
  });
  afterAll(async () => kb.cleanup());

  it("reports declared pairs and supersession cycles", async () => {
    const r = await call(kb, "contradiction_report", {});
    expect(r.contradictions).toEqual([
      { a: "a/p", b: "a/q", rule: "mutual_supersede", declared_by: ["a/p", "a/q"] },
      { a: "a/x", b: "a/y", rule: "declared", declared_by: ["a/x"] },
      { a: "a/z", b: "b/secret", rule: "declared", declared_by: ["a/z"] },
    ]);
    expect((await call(kb, "contradiction_report", { prefix: "a/x" })).total).toBe(1);
  });

  it("a pair with a hidden end is not reported to a narrow caller", async () => {
    const r = await call(kb, "contradiction_report", {}, ONLY_A);
    expect(r.total).toBe(2);
    expect(JSON.stringify(r)).not.toContain("secret");
  });

  it("conflict_resolve keep supersedes the other side in one commit", async () => {
    const commits = commitCount(kb.root);
    const r = await call(kb, "conflict_resolve", {
      id: "a/x",
      resolution: "keep",
      body: "settled",
    });
    expect(r).toMatchObject({ id: "a/x", resolved_with: ["a/y"], superseded: ["a/y"] });
    expect(commitCount(kb.root)).toBe(commits + 1);
    expect(headSubject(kb.root)).toBe("conflict_resolve: a/x");
    const x = await kb.runtime.store.readConcept("a/x");
    const y = await kb.runtime.store.readConcept("a/y");
    expect(x.frontmatter.contradicts).toBeUndefined();
    expect(x.body.trim()).toBe("settled");
    expect(y.frontmatter).toMatchObject({ status: "superseded", superseded_by: "a/x" });
  });

  it("conflict_resolve dismiss breaks a supersession cycle", async () => {
    await call(kb, "conflict_resolve", { id: "a/p", resolution: "dismiss" });
    const p = await kb.runtime.store.readConcept("a/p");
    expect(p.frontmatter.superseded_by).toBeUndefined();
    const r = await call(kb, "contradiction_report", { prefix: "a/p" });
    expect(r.total).toBe(0);
  });

  it("conflict_resolve without a recorded contradiction is invalid_argument; a missing id not_found", async () => {
    await expectKbError(
      () => call(kb, "conflict_resolve", { id: "a/y", resolution: "keep" }),
      "invalid_argument",
    );
    await expectKbError(
      () => call(kb, "conflict_resolve", { id: "a/none", resolution: "keep" }),
      "not_found",
    );
  });
});
