/**
 * Comments cite decisions and design rules that exist in the repository: every decision id
 * (D118, …) named in src/, test/ or bench/ has an entry in docs/decisions.md, every
 * `design.md §n` / `design.md Pn` names a heading of docs/design.md, and nothing cites the
 * out-of-repository DESIGN/STYLE documents any more.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "./sources.js";

const CODE_DIRS = ["src", "test", "bench", "scripts"];

function codeFiles(): { file: string; text: string }[] {
  const out: { file: string; text: string }[] = [];
  const walk = (rel: string) => {
    let entries: import("node:fs").Dirent[];
    try {
      entries = readdirSync(path.join(REPO_ROOT, rel), { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const child = path.posix.join(rel, e.name);
      if (e.isDirectory()) {
        if (e.name !== "node_modules" && e.name !== "golden") walk(child);
      } else if (/\.(ts|js|mjs)$/.test(e.name))
        out.push({ file: child, text: readFileSync(path.join(REPO_ROOT, child), "utf8") });
    }
  };
  for (const d of CODE_DIRS) walk(d);
  return out;
}

/** Decision ids cited in `text`: a capital D and digits standing alone (D18, D118). */
function citedIds(text: string): string[] {
  return [...text.matchAll(/(?<![\w-])D(\d{1,4})(?![\w-])/g)].map((m) => `D${m[1]}`);
}

/** Ids with an entry `- **D118 — …` under "Decision records cited in the code". */
function recordedIds(decisions: string): Set<string> {
  const section = decisions.split(/^## Decision records cited in the code$/m)[1] ?? "";
  return new Set([...section.matchAll(/^- \*\*(D\d+) — /gm)].map((m) => m[1] as string));
}

/** Section keys of docs/design.md: "§3" from `## §3 …`, "P2" from `### P2 …`. */
function designKeys(design: string): Set<string> {
  return new Set([...design.matchAll(/^#{2,3} (§\d+|P\d+) /gm)].map((m) => m[1] as string));
}

function missingDecisions(files: { file: string; text: string }[], decisions: string): string[] {
  const have = recordedIds(decisions);
  const out: string[] = [];
  for (const f of files)
    for (const id of new Set(citedIds(f.text))) if (!have.has(id)) out.push(`${f.file}: ${id}`);
  return out;
}

function badDesignCitations(files: { file: string; text: string }[], design: string): string[] {
  const keys = designKeys(design);
  const out: string[] = [];
  for (const f of files) {
    for (const m of f.text.matchAll(/design\.md (§\d+|P\d+)/g))
      if (!keys.has(m[1] as string)) out.push(`${f.file}: design.md ${m[1]} has no heading`);
    for (const m of f.text.matchAll(/\b(DESIGN|STYLE) §\d+/g))
      out.push(`${f.file}: "${m[0]}" points outside the repository; cite docs/design.md`);
  }
  return out;
}

const read = (rel: string) => readFileSync(path.join(REPO_ROOT, rel), "utf8");

describe("citations in the code resolve inside the repository", () => {
  const files = codeFiles().filter((f) => f.file !== "test/architecture/citations.test.ts");

  it("every cited decision id has an entry in docs/decisions.md", () => {
    expect(missingDecisions(files, read("docs/decisions.md"))).toEqual([]);
  });

  it("every design citation names a section of docs/design.md", () => {
    expect(badDesignCitations(files, read("docs/design.md"))).toEqual([]);
  });

  it("the checks fail on an unknown id, a missing section and an outside citation", () => {
    const decisions = "## Decision records cited in the code\n- **D18 — audit chain.** — why\n";
    const probe = [{ file: "src/x.ts", text: "// D18 and D999, not D-9 or AD18\n" }];
    expect(missingDecisions(probe, decisions)).toEqual(["src/x.ts: D999"]);
    const design = "## §4 Data plane\n### P2 Plan, then apply\n";
    const cites = [
      { file: "src/y.ts", text: "// design.md §4, design.md P2, design.md §7, STYLE §3" },
    ];
    expect(badDesignCitations(cites, design)).toEqual([
      "src/y.ts: design.md §7 has no heading",
      'src/y.ts: "STYLE §3" points outside the repository; cite docs/design.md',
    ]);
  });
});
