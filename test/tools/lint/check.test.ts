import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { governanceTools } from "../../../src/tools/families/governance.js";
import type { LintIssue } from "../../../src/tools/lint/check.js";
import { LINT_CHECKS, lintKb } from "../../../src/tools/lint/checks.js";
import { DEFAULT_LIMITS } from "../../../src/tools/lint/context.js";
import { callTool } from "../../support/call-tool.js";
import { expectKbError, makeTempKb, type TempKb, tool } from "../../support/tool-kb.js";

const c = (body: string, extra = "owner: ops\n") => `---\ntype: note\n${extra}---\n${body}\n`;
const MAP =
  "---\ntype: Map\nkind: map\nrequired_fields: [owner]\nrequire_index_entry: true\nmachine_path_allow_prefixes: [/home/app/]\n---\n";
const LIMITS = { ...DEFAULT_LIMITS, mapConcepts: 4 };

const DIRTY = {
  "data/m/_map.md": MAP,
  "data/m/index.md": "# M\n\n- [[m/a]]\n- [[m/ghost]]\n",
  "data/m/a.md": c("See [[m/b]] and [[m/nothere]]."),
  "data/m/b.md": c("Prose about b, linked from a.", ""),
  "data/m/lonely.md": c(
    "Notes live in /home/alice/notes.txt",
    "owner: ops\nvalid_until: 2000-01-01\n",
  ),
  "data/m/huge.md": c(`[[m/a]] ${"x".repeat(61 * 1024)}`),
  "data/m/sub/child.md": c("[[m/a]] child prose"),
  "data/m/dup.md": c("[[m/a]] flat"),
  "data/m/dup/index.md": c("[[m/a]] expanded"),
  "data/m/cat/index.md": c("# Cat\n\n- [[m/cat/x]]"),
  "data/m/cat/x.md": c("x prose [[m/a]]"),
  "data/m/pic.png": "not really a png",
  // Go v0.5's checks and contract keys.
  "data/m/imported.md": c("[[m/a]] imported prose", "owner: ops\nstatus: imported\n"),
  "data/m/review.md": c("[[m/a]] reviewed prose", "owner: ops\nreview_after: 2001-01-01\n"),
  "data/m/boundary.md": c("[[m/a]] Runs from /home/app2/bin, not the allowed /home/app."),
  "data/old/_archive.md": "---\ntype: Archive\ntitle: Old\n---\n",
  "data/bad/_map.md":
    "---\ntype: Map\nkind: map\nrequire_index_entry: maybe\nmachine_path_allow_prefixes: [relative/dir]\n---\n",
};

const CLEAN = {
  "data/m/_map.md": MAP,
  "data/m/index.md": "# M\n\n- [[m/a]]\n- [[m/b]]\n- [[m/exp]]\n",
  "data/m/a.md": c(
    "See [[m/b]] and [[m/exp]]. Run /usr/bin/env here. ![d](pic.png)",
    "owner: ops\nvalid_until: 2999-01-01\nreview_after: 2999-01-01\n",
  ),
  "data/m/b.md": c("Back to [[m/a]] with prose; the service keeps its data in /home/app/data."),
  "data/m/exp/index.md": c("The exp concept owns its children: [[m/exp/kid]]."),
  "data/m/exp/kid.md": c("Kid prose, part of [[m/exp]]."),
  "data/m/pic.png": "not really a png",
};

let dirty: TempKb;
let clean: TempKb;
let dirtyIssues: LintIssue[];
let cleanIssues: LintIssue[];
const now = new Date("2024-06-01T00:00:00Z");

beforeAll(async () => {
  [dirty, clean] = await Promise.all([makeTempKb({ files: DIRTY }), makeTempKb({ files: CLEAN })]);
  const all = { now, limits: LIMITS, listed: Number.POSITIVE_INFINITY };
  dirtyIssues = (await lintKb(dirty.runtime.store, all)).tally.report().issues;
  cleanIssues = (await lintKb(clean.runtime.store, all)).tally.report().issues;
});
afterAll(async () => Promise.all([dirty?.cleanup(), clean?.cleanup()]));

/** check → an id (or path) the dirty KB must report for it. */
const EXPECTED: Record<string, string> = {
  broken_link: "m/a",
  orphan: "m/lonely",
  stale_claim: "m/lonely",
  missing_required_field: "m/b",
  concept_oversize: "m/huge",
  map_oversize: "data/m/_map.md",
  expanded_missing_index: "m/sub",
  expanded_ambiguous: "m/dup",
  expanded_as_category: "m/cat",
  orphan_asset: "data/m/pic.png",
  index_incomplete: "m/b",
  machine_path: "m/lonely",
  imported_draft: "m/imported",
  legacy_archive_descriptor: "data/old/_archive.md",
  contract_malformed: "data/bad/_map.md",
};

describe("lint checks", () => {
  it("every check is data with a one-line explanation, and every check is exercised here", () => {
    for (const check of LINT_CHECKS) {
      expect(check.explanation).toMatch(/^[^\n]{10,160}$/);
      expect(EXPECTED[check.name]).toBeDefined();
    }
    expect(LINT_CHECKS).toHaveLength(15);
  });

  it.each(Object.entries(EXPECTED))("%s fires on the KB that breaks it", (check, subject) => {
    const hits = dirtyIssues.filter((i) => i.check === check);
    expect(hits.map((i) => i.id ?? i.path)).toContain(subject);
  });

  it.each(Object.keys(EXPECTED))("%s stays quiet on the KB that follows the rules", (check) => {
    expect(cleanIssues.filter((i) => i.check === check)).toEqual([]);
  });

  it("stale_claim honours Go's review_after", () => {
    const hit = dirtyIssues.find((i) => i.check === "stale_claim" && i.id === "m/review");
    expect(hit?.message).toBe("review_after 2001-01-01 has passed: re-check the claim");
  });

  it("machine_path skips the map's allowed prefixes, at a path-segment boundary only", () => {
    const hits = dirtyIssues.filter((i) => i.check === "machine_path");
    expect(hits.find((i) => i.id === "m/boundary")?.message).toBe(
      "machine-specific path /home/app2/bin,",
    );
    expect(cleanIssues.filter((i) => i.check === "machine_path")).toEqual([]);
  });

  it("contract_malformed names each malformed key of the descriptor", () => {
    const messages = dirtyIssues
      .filter((i) => i.check === "contract_malformed")
      .map((i) => `${i.path} ${i.message}`);
    expect(messages).toEqual([
      'data/bad/_map.md malformed lint contract key "require_index_entry": must be true or false; its malformed part is ignored',
      'data/bad/_map.md malformed lint contract key "machine_path_allow_prefixes": entries must be distinct absolute paths (/… or C:\\…); its malformed part is ignored',
    ]);
  });

  it("a broken link in an index file is reported against the index path", () => {
    const hit = dirtyIssues.find((i) => i.check === "broken_link" && i.path === "data/m/index.md");
    expect(hit?.message).toContain("m/ghost");
  });
});

interface LintResult {
  checks: string[];
  errors: number;
  warnings: number;
  issues: LintIssue[];
}

describe("lint tool", () => {
  const lint = tool(governanceTools, "lint");

  it("runs the named checks only, counting errors and warnings", async () => {
    const r = (await callTool(dirty.runtime, lint, { checks: ["orphan"] })) as LintResult;
    expect(r.checks).toEqual(["orphan"]);
    expect(r.errors).toBe(0);
    expect(r.warnings).toBeGreaterThan(0);
    expect(r.issues.every((i: LintIssue) => i.check === "orphan")).toBe(true);
  });

  it("prefix keeps issues under that id prefix", async () => {
    const r = (await callTool(dirty.runtime, lint, { prefix: "m/sub" })) as LintResult;
    expect(r.issues.length).toBeGreaterThan(0);
    expect(r.issues.every((i: LintIssue) => i.id?.startsWith("m/sub"))).toBe(true);
  });

  it("an unknown check is invalid_argument naming the known ones", async () => {
    const e = await expectKbError(
      () => callTool(dirty.runtime, lint, { checks: ["nope"] }),
      "invalid_argument",
    );
    expect(e.message).toContain("broken_link");
  });
});
