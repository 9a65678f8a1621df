/**
 * Comments cite decisions and design rules that exist in the repository: every decision id
 * (D118, …) named in src/, test/, bench/ or scripts/ has an entry in docs/decisions.md, every
 * `design.md §n` / `design.md Pn` names a heading of docs/design.md, every
 * `docs/<doc>.md "<words>"` names a heading or a list entry's bold title of that doc, and
 * nothing cites the out-of-repository DESIGN/STYLE documents or the issue tracker: a comment says
 * why in its own words (docs/design.md P10), a tracker number says nothing once the tracker is
 * gone (docs/decisions.md "Structure: citations").
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { commentsOf } from "./comments.js";
import { listSourceFiles, parseModule, REPO_ROOT } from "./sources.js";

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

/**
 * A tracker citation: `issue 12`, `issues 3 and 4`, `Issue #5`, `issue-16`, or a bare `#22` — a
 * `#` and digits not glued to a word, path or entity (`PKCS#8`, `owner/repo#71` and `&#39;` are
 * not ours; `#fff`, `## heading` and `status 404` have no `#` + digits).
 */
const TRACKER = /\b[Ii]ssues?[ -]#?\d+|(?<![\w/&#-])#\d+\b/g;

/** `file:line citation` for every tracker citation in the comments of `text`. */
function trackerCitations(file: string, text: string): string[] {
  const out: string[] = [];
  if (!text.match(TRACKER)) return out; // most files: no parse needed
  for (const c of commentsOf(file, text))
    for (const m of c.text.matchAll(TRACKER)) out.push(`${file}:${c.line} ${m[0]}`);
  return out;
}

const flat = (s: string) => s.replace(/`/g, "").replace(/\s+/g, " ").trim();

/** What a `docs/<doc>.md "<words>"` citation may name: a heading or a list entry's bold title. */
function citable(markdown: string): string[] {
  const names = [...markdown.matchAll(/^#{1,6} (.+)$/gm)].map((m) => flat(m[1] as string));
  for (const m of markdown.matchAll(/^- \*\*([\s\S]*?)\*\*/gm)) names.push(flat(m[1] as string));
  return names;
}

/**
 * `docs/sync.md "Conflicts"`, `decisions.md, "A"`, `docs/sync.md "A", "B" and "C"`: the doc and
 * each quoted name. A doc not under docs/ (SKILL.md, README.md) is not checked.
 */
const DOC_CITATION =
  /(?<![\w.-])(docs\/)?([\w-]+)\.md,? ((?:"[^"]{1,200}"(?:,? (?:and |or )?)?)+)/g;

function badDocCitations(
  files: { file: string; text: string }[],
  docs: (name: string) => string | undefined,
): string[] {
  const out: string[] = [];
  const names = new Map<string, string[] | null>();
  for (const f of files.filter((x) => /\.md,? "/.test(x.text)))
    for (const c of commentsOf(f.file, f.text))
      for (const m of c.text.matchAll(DOC_CITATION)) {
        const [, underDocs, doc] = m as unknown as [string, string | undefined, string];
        if (!names.has(doc)) {
          const md = docs(doc);
          names.set(doc, md === undefined ? null : citable(md));
        }
        const have = names.get(doc);
        if (!have) {
          if (underDocs) out.push(`${f.file}:${c.line} docs/${doc}.md does not exist`);
          continue;
        }
        for (const q of (m[3] as string).matchAll(/"([^"]+)"/g)) {
          const want = flat((q[1] as string).replace(/^#+ /, ""));
          if (!have.some((n) => n.includes(want)))
            out.push(`${f.file}:${c.line} docs/${doc}.md "${q[1]}" names no heading or entry`);
        }
      }
  return out;
}

const read = (rel: string) => readFileSync(path.join(REPO_ROOT, rel), "utf8");
const readDoc = (name: string) => {
  const rel = `docs/${name}.md`;
  return existsSync(path.join(REPO_ROOT, rel)) ? read(rel) : undefined;
};

describe("citations in the code resolve inside the repository", () => {
  const files = codeFiles().filter((f) => f.file !== "test/architecture/citations.test.ts");

  it("every cited decision id has an entry in docs/decisions.md", () => {
    expect(missingDecisions(files, read("docs/decisions.md"))).toEqual([]);
  });

  it("every design citation names a section of docs/design.md", () => {
    expect(badDesignCitations(files, read("docs/design.md"))).toEqual([]);
  });

  it("no comment cites the issue tracker", () => {
    expect(files.flatMap((f) => trackerCitations(f.file, f.text))).toEqual([]);
  });

  it("no string in src/ cites the issue tracker (users never see a tracker number)", () => {
    const hits = listSourceFiles()
      .map((file) => ({ file, text: read(`src/${file}`) }))
      .filter((f) => f.text.match(TRACKER)) // a parse only where the text has one at all
      .flatMap((f) =>
        parseModule(f.file, f.text)
          .literals.filter((s) => s.match(TRACKER))
          .map((s) => `src/${f.file}: ${s}`),
      );
    expect(hits).toEqual([]);
  });

  it('every docs/<doc>.md "<words>" citation names a heading or decision entry', () => {
    expect(badDocCitations(files, readDoc)).toEqual([]);
  });

  it("the tracker check flags issue numbers, not colours, headings or statuses", () => {
    const probe = [
      "// issue 12: the first",
      "/** A rule (issue 16) and issues 3 and 4. */",
      "// see #22 for more",
      'const colour = "#fff"; // colour "#fff", heading `## heading`, status 404',
      "/** PKCS#8, owner/repo#71, &#39;, #/a/b */",
      'const s = "issue 12 in a string is not a comment";',
    ].join("\n");
    expect(trackerCitations("src/p.ts", probe)).toEqual([
      "src/p.ts:1 issue 12",
      "src/p.ts:2 issue 16",
      "src/p.ts:2 issues 3",
      "src/p.ts:3 #22",
    ]);
  });

  it("the doc-citation check fails on a name with no heading or entry behind it", () => {
    const docs: Record<string, string> = {
      decisions: "## Search\n- **Whole-KB passes stream: `lint` and\n  more.** — why\n",
      sync: "# Sync\n## Conflicts\n",
    };
    const text = [
      '// docs/decisions.md "Whole-KB passes stream" and decisions.md, "Search"',
      '/** (docs/decisions.md "Whole-KB',
      ' * passes stream: lint and more"; docs/sync.md "Conflicts", "Gone") */',
      '// docs/decisions.md "No such entry"; docs/nope.md "X"; SKILL.md "Y"',
    ].join("\n");
    expect(badDocCitations([{ file: "src/c.ts", text }], (n) => docs[n])).toEqual([
      'src/c.ts:2 docs/sync.md "Gone" names no heading or entry',
      'src/c.ts:4 docs/decisions.md "No such entry" names no heading or entry',
      "src/c.ts:4 docs/nope.md does not exist",
    ]);
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
