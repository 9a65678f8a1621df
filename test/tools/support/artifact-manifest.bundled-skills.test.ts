/**
 * The skills shipped in the package's skills/ folder are real: well-formed frontmatter, and every
 * tool they name exists in the registry (a renamed tool would otherwise leave agents calling a
 * tool that is not there). A snake_case word in backticks must be a tool, an argument or result
 * field of some tool, an error code or a frontmatter field the KB uses.
 */
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseDocument } from "../../../src/kb/core/frontmatter.js";
import { allTools } from "../../../src/tools/registry.js";
import { PACKAGE_ROOT } from "../../../src/tools/support/artifact-manifest.js";

const SKILLS_DIR = join(PACKAGE_ROOT, "skills");
const REQUIRED = ["cartographer-kb-loop", "kb-create", "kb-import", "kb-conflict-resolve"];

/** Words that are not tools: error codes, frontmatter and result fields the skills explain. */
const NOT_TOOLS = new Set([
  "stale_write",
  "old_string_not_found",
  "old_string_ambiguous",
  "superseded_by",
  "conflicts_with",
  "local_sha",
  "remote_sha",
  "no_remote",
]);

function propertyNames(schema: unknown, out: Set<string>): void {
  if (typeof schema !== "object" || schema === null) return;
  const props = (schema as { properties?: Record<string, unknown> }).properties;
  for (const [k, v] of Object.entries(props ?? {})) {
    out.add(k);
    propertyNames(v, out);
    propertyNames((v as { items?: unknown }).items, out);
  }
}

describe("bundled skills", () => {
  it("ship kb-loop, kb-create, kb-import and kb-conflict-resolve with name, description, version", async () => {
    const names = (await readdir(SKILLS_DIR)).sort();
    expect(names).toEqual(expect.arrayContaining(REQUIRED));
    for (const name of names) {
      const text = await readFile(join(SKILLS_DIR, name, "SKILL.md"), "utf8");
      const { frontmatter } = parseDocument(text);
      expect(frontmatter.name, name).toBe(name);
      expect(String(frontmatter.description ?? "").length, name).toBeGreaterThan(40);
      expect(String(frontmatter.version ?? ""), name).toMatch(/^\d/);
    }
  });

  it("every tool a bundled skill names exists in the registry", async () => {
    const tools = new Set(allTools().map((t) => t.name));
    const known = new Set(NOT_TOOLS);
    for (const t of allTools()) propertyNames(t.inputSchema, known);
    for (const name of (await readdir(SKILLS_DIR)).sort()) {
      const text = await readFile(join(SKILLS_DIR, name, "SKILL.md"), "utf8");
      const spans = [...text.matchAll(/`([^`\n]+)`/g)].map((m) => m[1] as string);
      const named = spans.map((s) => s.split(/[\s{(]/)[0] as string);
      // The tools each skill is about must be recognised at all (guards the extraction itself).
      expect(named.filter((w) => tools.has(w)).length, name).toBeGreaterThan(3);
      const unknown = named.filter(
        (w) => /^[a-z]+(_[a-z]+)+$/.test(w) && !tools.has(w) && !known.has(w),
      );
      expect(unknown, `${name} names tools that do not exist`).toEqual([]);
    }
  });

  it("the checker catches a misspelled tool name", () => {
    const tools = new Set(allTools().map((t) => t.name));
    expect(tools.has("concept_reed")).toBe(false);
    expect(/^[a-z]+(_[a-z]+)+$/.test("concept_reed")).toBe(true);
  });
});
