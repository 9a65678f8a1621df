/**
 * test/ mirrors src/ (docs/decisions.md "Structure: test layout"): a test of src/<dir>/<name>.ts
 * is test/<dir>/<name>.test.ts, or test/<dir>/<name>.<theme>.test.ts when one module's tests are
 * split by theme. Fails on a test in a folder src/ does not have, and on a test named after a
 * module that does not exist there. Tests of the whole system keep their own folders.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");
const TEST = join(ROOT, "test");
const SRC = join(ROOT, "src");

/** Tests of the whole (the built binary, the protocol, the docs, the tree) and shared helpers. */
const WHOLE_SYSTEM = ["e2e", "conformance", "docs", "architecture", "support"];

/** Whole-system suites inside a unit's folder: the console driven in a real browser. */
const WHOLE_SYSTEM_FOLDERS = ["console/browser/"];

/**
 * Tests still being moved into place (none now): a folder prefix or a file, dropped once it
 * mirrors src/. Keep it empty: a new test belongs beside its module from the start.
 */
const STILL_MOVING: string[] = [];

function testFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...testFiles(path));
    else if (name.endsWith(".test.ts")) out.push(relative(TEST, path).split(sep).join("/"));
  }
  return out;
}

/** Tests that must mirror src/: everything outside the whole-system folders and the moving ones. */
function mirroredTests(): string[] {
  return testFiles(TEST).filter(
    (file) =>
      !WHOLE_SYSTEM.includes(file.split("/")[0] ?? "") &&
      !WHOLE_SYSTEM_FOLDERS.some((prefix) => file.startsWith(prefix)) &&
      !STILL_MOVING.some((prefix) => file.startsWith(prefix)),
  );
}

const folderOf = (file: string) => file.split("/").slice(0, -1).join("/");

describe("test/ mirrors src/", () => {
  it("every test sits in a folder that src/ has", () => {
    const misplaced = mirroredTests().filter((file) => {
      const src = join(SRC, folderOf(file));
      return !existsSync(src) || !statSync(src).isDirectory();
    });
    expect(
      misplaced,
      "these tests sit in a folder src/ does not have: move each to test/<dir>/ of the src/<dir>/ " +
        "module it tests, or, for a test of the " +
        "whole system, to test/e2e/",
    ).toEqual([]);
  });

  it("every test is named after a module of its folder (name.test.ts or name.theme.test.ts)", () => {
    const unnamed = mirroredTests().filter((file) => {
      const module = (file.split("/").pop() ?? "").split(".")[0] ?? "";
      return !existsSync(join(SRC, folderOf(file), `${module}.ts`));
    });
    expect(
      unnamed,
      "these tests are not named after a module beside which they would sit in src/: rename each " +
        "<module>.test.ts, or <module>.<theme>.test.ts when the module's tests are split by theme",
    ).toEqual([]);
  });

  it("the exceptions still name tests that exist (drop an entry once its folder is moved)", () => {
    const all = testFiles(TEST);
    const stale = STILL_MOVING.filter((prefix) => !all.some((file) => file.startsWith(prefix)));
    expect(stale, "remove these entries from STILL_MOVING: no test is left under them").toEqual([]);
  });
});
