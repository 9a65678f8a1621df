import { describe, expect, it } from "vitest";
import { KbError } from "../../src/common/errors.js";
import { validateArgs } from "../../src/tools/args.js";
import { denialError, renderError, renderResult } from "../../src/tools/result.js";
import { arr, bool, enumOf, int, object, objectSchema, opt, str } from "../../src/tools/schema.js";
import type { ToolSpec } from "../../src/tools/spec.js";

const spec: ToolSpec = {
  name: "demo",
  description: "demo",
  inputSchema: objectSchema({
    id: str(),
    limit: opt(int({ min: 1, max: 100 })),
    mode: opt(enumOf(["keyword", "semantic"])),
    full: opt(bool()),
    where: opt(arr(str())),
    edits: opt(arr(object({ old_string: str(), new_string: str() }))),
  }),
  readOnly: true,
  advanced: false,
  resource: "whole",
  auditFields: ["id"],
  handler: async () => ({}),
};

function message(args: unknown): string {
  try {
    validateArgs(spec, args);
  } catch (err) {
    expect(err).toBeInstanceOf(KbError);
    return renderError(err);
  }
  throw new Error("expected a validation failure");
}

describe("validateArgs names the argument and what it expected", () => {
  it("accepts valid arguments and treats null optionals as absent", () => {
    expect(validateArgs(spec, { id: "a", limit: 5, mode: "keyword", full: null })).toEqual({
      id: "a",
      limit: 5,
      mode: "keyword",
      full: null,
    });
  });
  it("a missing required argument", () => {
    expect(message({})).toBe("invalid_argument: 'id' is required");
    expect(message(undefined)).toBe("invalid_argument: 'id' is required");
  });
  it("wrong scalar types", () => {
    expect(message({ id: "a", limit: "x" })).toBe(
      `invalid_argument: 'limit' must be an integer between 1 and 100, got "x"`,
    );
    expect(message({ id: "a", limit: 1.5 })).toContain("'limit' must be an integer");
    expect(message({ id: "a", limit: 0 })).toContain(
      "'limit' must be an integer between 1 and 100, got 0",
    );
    expect(message({ id: 3 })).toBe("invalid_argument: 'id' must be a string, got 3");
    expect(message({ id: "a", full: "yes" })).toContain("'full' must be a boolean");
  });
  it("enum, arrays and nested objects name the path", () => {
    expect(message({ id: "a", mode: "fuzzy" })).toBe(
      `invalid_argument: 'mode' must be one of keyword|semantic, got "fuzzy"`,
    );
    expect(message({ id: "a", where: "x=1" })).toContain("'where' must be an array");
    expect(message({ id: "a", where: ["ok", 2] })).toContain("'where[1]' must be a string");
    expect(message({ id: "a", edits: [{ old_string: "x" }] })).toBe(
      "invalid_argument: 'edits[0].new_string' is required",
    );
  });
  it("unknown arguments are refused, listing the known ones", () => {
    expect(message({ id: "a", lmit: 3 })).toContain(
      "'lmit' is not a known argument; known: id, limit",
    );
  });
  it("non-object arguments", () => {
    expect(message([1])).toContain("arguments of demo must be an object");
  });
});

describe("result rendering", () => {
  it("results are compact JSON", () => {
    expect(renderResult({ a: 1, b: [1, 2] })).toBe('{"a":1,"b":[1,2]}');
    expect(renderResult(undefined)).toBe("{}");
  });
  it("KbErrors render as <code>: <message>", () => {
    expect(renderError(new KbError("stale_write", "hash differs"))).toBe(
      "stale_write: hash differs",
    );
  });
  it("denials are byte-exact", () => {
    expect(renderError(denialError("forbidden"))).toBe("forbidden");
    expect(renderError(new KbError("forbidden", "you may not see infra/x"))).toBe("forbidden");
    expect(renderError(denialError("not_found_hidden"))).toBe("not found");
  });
  it("anything else is internal with a short first line", () => {
    expect(renderError(new TypeError("boom\n at stack"))).toBe("internal: boom");
    expect(renderError(new Error("x".repeat(500))).length).toBeLessThanOrEqual(
      "internal: ".length + 200,
    );
    expect(renderError("weird")).toBe("internal: weird");
  });
});
