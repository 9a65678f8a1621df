/**
 * docs/migrating-from-go.md "## Tools" against the registry and docs/go-contract.json
 * (docs/decisions.md "The Go tool contract is data"): every Go v0.5 tool is served or names its
 * replacement, every Go argument is served under its name, accepted as an alias, or explained as
 * renamed/removed, and the generated section is the one in the file.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  argumentFate,
  BEGIN,
  END,
  loadContract,
  loadNotes,
  MIGRATION_DOC_PATH,
  renderToolsSection,
} from "../../scripts/migration-doc.js";
import { allTools } from "../../src/tools/registry.js";

const contract = loadContract();
const notes = loadNotes();
const specs = new Map(allTools().map((s) => [s.name, s]));

describe("Go v0.5 tool contract", () => {
  it("the contract file holds Go's tools (sanity: the extraction did not come back empty)", () => {
    expect(contract.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(Object.keys(contract.tools).length).toBeGreaterThanOrEqual(50);
    expect(contract.tools.concept_move?.arguments.map((a) => a.name)).toContain("source_id");
  });

  it("every Go tool is served here, or listed as missing with its replacement", () => {
    const unexplained = Object.keys(contract.tools).filter(
      (name) => !specs.has(name) && !notes[name]?.replacement,
    );
    expect(unexplained, "add a replacement to docs/go-migration-notes.json").toEqual([]);
  });

  it("a tool served here does not also claim a replacement", () => {
    const both = Object.keys(notes).filter((n) => specs.has(n) && notes[n]?.replacement);
    expect(both).toEqual([]);
  });

  it("every Go argument of a served tool is kept, aliased, or explained", () => {
    const unexplained: string[] = [];
    for (const [name, go] of Object.entries(contract.tools)) {
      const spec = specs.get(name);
      if (!spec) continue;
      for (const arg of go.arguments) {
        if (!argumentFate(arg, spec, notes[name] ?? {})) unexplained.push(`${name}.${arg.name}`);
      }
    }
    expect(unexplained, "alias it in the tool's spec or explain it in the notes").toEqual([]);
  });

  it("every alias in the registry is a Go argument name of that tool", () => {
    const stray: string[] = [];
    for (const spec of specs.values()) {
      const goArgs = new Set(contract.tools[spec.name]?.arguments.map((a) => a.name) ?? []);
      for (const alias of Object.keys(spec.aliases ?? {})) {
        // `moves[].source_id`: the array must be a Go argument (its items are not in the contract).
        if (!goArgs.has(alias.split("[].")[0] as string)) stray.push(`${spec.name}.${alias}`);
      }
    }
    expect(stray).toEqual([]);
  });

  it("notes name only Go tools and Go arguments (no stale entry)", () => {
    const stale: string[] = [];
    for (const [name, n] of Object.entries(notes)) {
      const go = contract.tools[name];
      if (!go) {
        stale.push(name);
        continue;
      }
      const goArgs = new Set(go.arguments.map((a) => a.name));
      for (const arg of [...Object.keys(n.renamed ?? {}), ...Object.keys(n.dropped ?? {})]) {
        if (!goArgs.has(arg)) stale.push(`${name}.${arg}`);
      }
    }
    expect(stale).toEqual([]);
  });

  it("docs/migrating-from-go.md holds the generated section (run `npm run docs:migration`)", () => {
    const doc = readFileSync(MIGRATION_DOC_PATH, "utf8");
    const begin = doc.indexOf(BEGIN);
    const end = doc.indexOf(END);
    expect(begin, "the Tools section markers are missing").toBeGreaterThanOrEqual(0);
    expect(doc.slice(begin, end + END.length)).toBe(renderToolsSection());
    expect(doc.lastIndexOf("## Tools", begin)).toBeGreaterThanOrEqual(0);
  });
});
