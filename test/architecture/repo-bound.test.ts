/**
 * Tests, scripts and benchmarks read nothing outside the repository: a user's clone has no
 * steering folder beside it. Every relative path literal that is resolved against a file's own folder
 * (`import.meta.dirname`, `__dirname`, a REPO_ROOT) must stay inside the clone, and no source
 * names the steering folder by a relative path that climbs out of it.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "./sources.js";

/** The steering folder's name, spelled so that this file does not itself name a path into it. */
const STEERING = ["sha", "red"].join("");
/** A string literal holding `../<steering folder>/…`. */
const INTO_STEERING = new RegExp(`["'\`][^"'\`\\n]*\\.\\./${STEERING}/[^"'\`\\n]*["'\`]`, "g");
const SCANNED = ["test", "scripts", "bench", "vitest.config.ts", ".ci"];
const SKIP_DIRS = new Set(["node_modules", "fixtures", "dist"]);

function files(entry: string): string[] {
  const abs = path.join(REPO_ROOT, entry);
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const child of readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, child.name);
      if (child.isDirectory()) {
        if (!SKIP_DIRS.has(child.name)) walk(p);
      } else out.push(p);
    }
  };
  try {
    walk(abs);
  } catch {
    out.push(abs); // a plain file
  }
  return out.filter((f) => /\.(ts|js|mjs|sh)$|\/run$/.test(f));
}

/** `resolve|join(<base>, "a", "../b")` where base is the file's folder or the repo root. */
const ANCHORED =
  /(?:resolve|join)\(\s*(import\.meta\.dirname|__dirname|REPO_ROOT|ROOT)\s*,((?:\s*["'][^"']*["']\s*,?)+)\)/g;

function escapesRepo(file: string, base: string, parts: string[]): boolean {
  const from = base === "REPO_ROOT" || base === "ROOT" ? REPO_ROOT : path.dirname(file);
  const target = path.resolve(from, ...parts);
  const rel = path.relative(REPO_ROOT, target);
  return rel.startsWith("..") || path.isAbsolute(rel);
}

function findEscapes(file: string, text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(ANCHORED)) {
    const parts = [...(m[2] ?? "").matchAll(/["']([^"']*)["']/g)].map((p) => p[1] ?? "");
    if (escapesRepo(file, m[1] ?? "", parts)) found.push(m[0]);
  }
  for (const m of text.matchAll(INTO_STEERING)) found.push(m[0]);
  return found;
}

describe("nothing reads outside the repository", () => {
  it("the scan sees an escape when there is one", () => {
    const file = path.join(REPO_ROOT, "test/x/y.test.ts");
    expect(
      findEscapes(file, `resolve(import.meta.dirname, "../../../${STEERING}/fixtures/kb")`),
    ).toHaveLength(2);
    expect(findEscapes(file, 'join(REPO_ROOT, "..", "elsewhere")')).toHaveLength(1);
    expect(findEscapes(file, 'resolve(import.meta.dirname, "../fixtures")')).toEqual([]);
  });

  it("no test, script, benchmark or CI file climbs out of the clone", () => {
    const offenders: string[] = [];
    for (const entry of SCANNED)
      for (const file of files(entry)) {
        if (file.endsWith("repo-bound.test.ts")) continue;
        for (const hit of findEscapes(file, readFileSync(file, "utf8")))
          offenders.push(`${path.relative(REPO_ROOT, file)}: ${hit}`);
      }
    expect(offenders).toEqual([]);
  });
});
