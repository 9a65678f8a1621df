/**
 * The typed argument builder: a shape emits exactly the JSON-schema fragments tools/list has
 * always shown, and the handler receives parsed arguments of the inferred type (null = absent,
 * fallbacks applied, a blank non-empty string refused or dropped) with the validator's texts.
 */
import { describe, expect, expectTypeOf, it } from "vitest";
import { KbError } from "../../src/common/errors.js";
import { validateArgs } from "../../src/tools/args.js";
import { defineTool } from "../../src/tools/define.js";
import { renderError } from "../../src/tools/result.js";
import {
  anyObj,
  arr,
  bool,
  enumOf,
  int,
  nonEmptyStr,
  object,
  objectSchema,
  openObject,
  opt,
  str,
} from "../../src/tools/schema.js";
import type { ToolContext } from "../../src/tools/spec.js";

const ctx = {} as ToolContext;

describe("schema fragments are today's JSON Schema, byte for byte", () => {
  it("scalars, bounds, enums, descriptions keep their key order", () => {
    const schema = objectSchema({
      id: nonEmptyStr(),
      scope: opt(str("Map name")),
      limit: opt(int({ min: 1, max: 500 }), 20),
      score: opt(int({ min: 0, description: "d" })),
      full: opt(bool()),
      mode: opt(enumOf(["a", "b"], "m")),
      where: opt(arr(str())),
      frontmatter: anyObj(),
    });
    expect(JSON.stringify(schema)).toBe(
      '{"type":"object","properties":{"id":{"type":"string"},"scope":{"type":"string","description":"Map name"},' +
        '"limit":{"type":"integer","minimum":1,"maximum":500},"score":{"type":"integer","minimum":0,"description":"d"},' +
        '"full":{"type":"boolean"},"mode":{"type":"string","enum":["a","b"],"description":"m"},' +
        '"where":{"type":"array","items":{"type":"string"}},"frontmatter":{"type":"object"}},' +
        '"required":["id","frontmatter"],"additionalProperties":false}',
    );
  });
  it("no arguments is an empty closed object", () => {
    expect(JSON.stringify(objectSchema())).toBe(
      '{"type":"object","properties":{},"additionalProperties":false}',
    );
  });
  it("nested closed and open objects", () => {
    const schema = objectSchema({
      edits: opt(arr(object({ a: str(), b: opt(bool()) }), "Ordered")),
      ops: arr(openObject({ op: enumOf(["x"]), id: str() })),
    });
    expect(JSON.stringify(schema.properties)).toBe(
      '{"edits":{"type":"array","items":{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"boolean"}},' +
        '"required":["a"],"additionalProperties":false},"description":"Ordered"},' +
        '"ops":{"type":"array","items":{"type":"object","properties":{"op":{"type":"string","enum":["x"]},' +
        '"id":{"type":"string"}},"required":["op","id"]}}}',
    );
  });
});

const probe = defineTool({
  name: "probe",
  description: "d",
  readOnly: true,
  advanced: false,
  resource: "whole",
  args: {
    id: nonEmptyStr(),
    scope: opt(nonEmptyStr()),
    body: opt(str()),
    limit: opt(int({ min: 1, max: 9 }), 5),
    full: opt(bool()),
    mode: opt(enumOf(["keyword", "semantic"] as const), "keyword"),
    edits: opt(arr(object({ old_string: str(), replace_all: opt(bool()) }))),
    ops: opt(arr(openObject({ op: str() }))),
  },
  auditFields: ["id"],
  handler: async (args) => {
    expectTypeOf(args.id).toEqualTypeOf<string>();
    expectTypeOf(args.scope).toEqualTypeOf<string | undefined>();
    expectTypeOf(args.limit).toEqualTypeOf<number>();
    expectTypeOf(args.mode).toEqualTypeOf<"keyword" | "semantic">();
    expectTypeOf(args.full).toEqualTypeOf<boolean | undefined>();
    return args;
  },
});

async function failure(args: unknown): Promise<string> {
  try {
    await probe.handler(args as Record<string, unknown>, ctx);
  } catch (err) {
    expect(err).toBeInstanceOf(KbError);
    return renderError(err);
  }
  throw new Error("expected a failure");
}

describe("defineTool hands the handler parsed, typed arguments", () => {
  it("drops nulls and absent optionals, applies fallbacks, keeps what was sent", async () => {
    const args = await probe.handler(
      {
        id: "a",
        scope: null,
        body: "",
        full: false,
        edits: [{ old_string: "x", replace_all: null }],
      },
      ctx,
    );
    expect(args).toEqual({
      id: "a",
      body: "",
      limit: 5,
      full: false,
      mode: "keyword",
      edits: [{ old_string: "x" }],
    });
    expect(Object.keys(args as object)).toEqual(["id", "body", "limit", "full", "mode", "edits"]);
  });
  it("a blank non-empty string: refused when required, absent when optional", async () => {
    expect(await failure({ id: "" })).toBe(
      "invalid_argument: 'id' is required: pass a non-empty string",
    );
    expect(await probe.handler({ id: "a", scope: "" }, ctx)).not.toHaveProperty("scope");
  });
  it("open objects keep their other keys; closed ones were checked by the schema", async () => {
    const args = await probe.handler({ id: "a", ops: [{ op: "w", id: "x", body: null }] }, ctx);
    expect((args as { ops: unknown[] }).ops).toEqual([{ op: "w", id: "x", body: null }]);
    expect(await failure({ id: "a", edits: [{ old_string: "x", other: 1 }] })).toContain(
      "'edits[0].other' is not a known argument",
    );
  });
  it("invalid arguments get the validator's texts, as the pipeline reports them", async () => {
    for (const bad of [{}, { id: 3 }, { id: "a", limit: 10 }, { id: "a", mode: "x" }, [1]]) {
      let expected = "";
      try {
        validateArgs(probe, bad);
      } catch (err) {
        expected = renderError(err);
      }
      expect(expected).not.toBe("");
      expect(await failure(bad)).toBe(expected);
    }
    expect(await failure({ id: "a", limit: 10 })).toBe(
      "invalid_argument: 'limit' must be an integer between 1 and 9, got 10",
    );
  });
});
