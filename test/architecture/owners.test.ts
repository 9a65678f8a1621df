/**
 * Single owners of parsing rules (design.md P3): a Content-Type header is interpreted only by
 * src/http/content-type.ts. A substring test for "json" on a header elsewhere accepts
 * `application/jsonx` or misses `Application/JSON; charset=utf-8`.
 */
import { describe, expect, it } from "vitest";
import { loadSources, parseModule, type SourceModule } from "./sources.js";

const OWNER = "http/content-type.ts";
const MEDIA_TYPE_SNIFF =
  /\.(includes|startsWith|endsWith|indexOf|match|test)\(\s*["'`/][^)]*\bjson\b|\/[^/\n]*json[^/\n]*\/[gimsuy]*\.test\(/i;

function sniffers(modules: SourceModule[]): string[] {
  return modules
    .filter((m) => m.file !== OWNER)
    .flatMap((m) =>
      m.text
        .split("\n")
        .map((line, i) => (MEDIA_TYPE_SNIFF.test(line) ? `${m.file}:${i + 1}` : null))
        .filter((x): x is string => x !== null),
    );
}

describe("Content-Type has one owner", () => {
  it("no module but content-type.ts tests a string for json", () => {
    expect(sniffers(loadSources())).toEqual([]);
  });

  it("the rule catches a substring check and a regex check", () => {
    const found = sniffers([
      parseModule("http/x.ts", 'const ok = ct.includes("application/json");'),
      parseModule("http/y.ts", "const ok = /^application\\/json/i.test(ct);"),
      parseModule("http/z.ts", 'import { isJsonContentType } from "./content-type.js";'),
    ]);
    expect(found).toEqual(["http/x.ts:1", "http/y.ts:1"]);
  });
});
