/**
 * Constants are defined once (design.md P3): a message or wire text of 24+ characters that
 * appears as a value in two modules of src/ is a second copy waiting to drift (the required-mode
 * rejection once was). Import the owner's constant instead. Literal types (`"a" | "b"`) are
 * type-checked codes, not copies, and do not count.
 */
import { describe, expect, it } from "vitest";
import { loadSources, parseModule, type SourceModule } from "./sources.js";

const MIN_LENGTH = 24;

/** `"text" in a.ts, b.ts` for each long literal found as a value in two or more modules. */
function duplicatedTexts(modules: SourceModule[]): string[] {
  const where = new Map<string, Set<string>>();
  for (const m of modules)
    for (const text of m.literals) {
      if (text.length < MIN_LENGTH) continue;
      const files = where.get(text) ?? new Set<string>();
      files.add(m.file);
      where.set(text, files);
    }
  return [...where]
    .filter(([, files]) => files.size > 1)
    .map(([text, files]) => `${JSON.stringify(text)} in ${[...files].sort().join(", ")}`);
}

describe("texts are defined once", () => {
  it("no long string literal is repeated across src/ modules", () => {
    expect(duplicatedTexts(loadSources())).toEqual([]);
  });

  it("the rule catches the old double definition of the required-mode rejection", () => {
    const text = "audit log unavailable: call rejected (required mode)";
    const found = duplicatedTexts([
      parseModule("audit/sink.ts", `export const REQUIRED_MODE_REJECTION = "${text}";`),
      parseModule("mcp/call-pipeline.ts", `export const AUDIT_REQUIRED_REJECTION = "${text}";`),
      parseModule("audit/chain-check.ts", 'type Reason = "bad checkpoint signature" | "x";'),
      parseModule("audit/verify.ts", 'const r = "bad checkpoint signature";'),
    ]);
    expect(found).toEqual([`${JSON.stringify(text)} in audit/sink.ts, mcp/call-pipeline.ts`]);
  });
});
