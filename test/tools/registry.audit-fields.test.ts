/**
 * The registry's audit-field rule: a tool may record id-like strings and behaviour-changing
 * flags (booleans, enums), never content, free text, objects, lists or undeclared arguments.
 */
import { describe, expect, it } from "vitest";
import { allTools, registerTools } from "../../src/tools/registry.js";
import { anyObj, arr, bool, enumOf, int, objectSchema, opt, str } from "../../src/tools/schema.js";
import type { ToolSpec } from "../../src/tools/spec.js";

const spec = (auditFields: string[], readOnly = false): ToolSpec => ({
  name: "probe_tool",
  description: "d",
  inputSchema: objectSchema({
    id: opt(str()),
    recursive: opt(bool()),
    mode: opt(enumOf(["a", "b"])),
    reason: opt(str()),
    meta: opt(anyObj()),
    ids: opt(arr(str())),
    depth: opt(int()),
    body: opt(bool()),
  }),
  readOnly,
  advanced: false,
  resource: "whole",
  auditFields,
  handler: async () => ({}),
});

describe("audit fields", () => {
  it("accepts id-like strings, booleans and enums", () => {
    expect(() => registerTools([spec(["id", "recursive", "mode"])])).not.toThrow();
  });

  it("refuses free text, objects, lists and numbers, for read tools as for writes", () => {
    for (const readOnly of [false, true]) {
      for (const field of ["reason", "meta", "ids", "depth"]) {
        expect(() => registerTools([spec(["id", field], readOnly)]), field).toThrow(
          `probe_tool audit field ${field} is neither an id-like string, a boolean nor an enum`,
        );
      }
    }
  });

  it("refuses a content field even when its schema is a flag", () => {
    expect(() => registerTools([spec(["body"])])).toThrow(/audit field body is a content field/);
  });

  it("refuses a field the input schema does not declare", () => {
    expect(() => registerTools([spec(["recursve"])])).toThrow(
      /audit field recursve is not an argument of its input schema/,
    );
  });

  it("destructive and behaviour-changing flags are recorded", () => {
    const fields = (name: string) => allTools().find((t) => t.name === name)?.auditFields;
    expect(fields("concept_delete")).toEqual(["id", "recursive", "variant"]);
    expect(fields("concept_move")).toEqual(["from", "to", "rewrite_links"]);
    expect(fields("asset_delete")).toEqual(["path", "force"]);
  });
});
