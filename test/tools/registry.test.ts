import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { KbSettings } from "../../src/kb/core/types.js";
import { allTools, registerTools, toolsFor } from "../../src/tools/registry.js";
import { anyObj, objectSchema, opt, str } from "../../src/tools/schema.js";
import type { ToolSpec } from "../../src/tools/spec.js";

const golden = JSON.parse(
  readFileSync(new URL("./golden/tools.json", import.meta.url), "utf8"),
) as {
  names: string[];
  readOnly: string[];
  agent: string[];
};

function testSettings(root: string, opts: { allowArtifactWrite?: boolean } = {}): KbSettings {
  return {
    name: "t",
    root,
    allowArtifactWrite: opts.allowArtifactWrite ?? false,
    autocommit: true,
  };
}

/** What tools/list carries per tool (the surface serializes exactly these fields). */
function descriptor(spec: ToolSpec) {
  const annotations: Record<string, boolean> = { readOnlyHint: spec.readOnly };
  if (spec.destructive) annotations.destructiveHint = true;
  if (spec.idempotent) annotations.idempotentHint = true;
  return {
    name: spec.name,
    description: spec.description,
    inputSchema: spec.inputSchema,
    annotations,
  };
}

describe("registry golden", () => {
  const tools = allTools();
  it("pins the tool names", () => {
    expect(tools.map((t) => t.name).sort()).toEqual([...golden.names].sort());
  });
  it("pins the read-only set", () => {
    expect(
      tools
        .filter((t) => t.readOnly)
        .map((t) => t.name)
        .sort(),
    ).toEqual([...golden.readOnly].sort());
  });
  it("pins the agent-profile (non-advanced) set", () => {
    expect(
      tools
        .filter((t) => !t.advanced)
        .map((t) => t.name)
        .sort(),
    ).toEqual([...golden.agent].sort());
  });
  it("agent-profile tools/list stays within 22,000 bytes", () => {
    const agent = toolsFor(testSettings("/kb", { allowArtifactWrite: true })).filter(
      (t) => !t.advanced,
    );
    const bytes = Buffer.byteLength(JSON.stringify(agent.map(descriptor)), "utf8");
    expect(bytes).toBeLessThanOrEqual(22_000);
  });
});

describe("toolsFor applies enable conditions", () => {
  it("artifact writes appear only with allow_artifact_write", () => {
    const off = toolsFor(testSettings("/kb")).map((t) => t.name);
    const on = toolsFor(testSettings("/kb", { allowArtifactWrite: true })).map((t) => t.name);
    expect(off).not.toContain("artifact_write");
    expect(off).not.toContain("artifact_delete");
    expect(on).toContain("artifact_write");
    expect(on).toContain("artifact_delete");
    expect(off).toContain("artifact_read");
  });
});

describe("registerTools fails closed", () => {
  const base: ToolSpec = {
    name: "ok_tool",
    description: "d",
    inputSchema: objectSchema({
      id: opt(str()),
      body: opt(str()),
      frontmatter: opt(anyObj()),
      content: opt(str()),
    }),
    readOnly: false,
    advanced: false,
    resource: "whole",
    auditFields: ["id"],
    handler: async () => ({}),
  };
  it("accepts a well-formed spec", () => {
    expect(registerTools([base]).map((t) => t.name)).toEqual(["ok_tool"]);
  });
  it("refuses a spec without a resource class", () => {
    const bad = { ...base, resource: undefined } as unknown as ToolSpec;
    expect(() => registerTools([bad])).toThrow(/no resource class/);
  });
  it("refuses a Go alias that shadows an argument or names none", () => {
    expect(() => registerTools([{ ...base, aliases: { body: "id" } }])).toThrow(
      /alias body shadows an argument/,
    );
    expect(() => registerTools([{ ...base, aliases: { source_id: "from" } }])).toThrow(
      /alias source_id names from, not an argument/,
    );
    expect(
      registerTools([{ ...base, aliases: { source_id: "id", with_hash: null } }]),
    ).toHaveLength(1);
    expect(() => registerTools([{ ...base, aliases: { "body[].x": "y" } }])).toThrow(
      /alias body\[\]\.x names y, not an argument/,
    );
  });
  it("refuses a duplicate name", () => {
    expect(() => registerTools([base, { ...base }])).toThrow(/duplicate tool name ok_tool/);
  });
  it("refuses a write tool auditing body, frontmatter or content", () => {
    for (const field of ["body", "frontmatter", "content"]) {
      expect(() => registerTools([{ ...base, auditFields: ["id", field] }])).toThrow(
        /is a content field/,
      );
    }
  });
  it("refuses a targeted class without targets", () => {
    expect(() => registerTools([{ ...base, resource: "exact" }])).toThrow(/declares no targets/);
  });
  it("every registered tool audits only id-like strings, booleans and enums", () => {
    const idLike = new Set([
      "id",
      "from",
      "to",
      "path",
      "name",
      "scope",
      "template",
      "by",
      "label",
      "prefix",
    ]);
    for (const t of allTools()) {
      const props = t.inputSchema.properties as Record<string, { type?: string; enum?: unknown }>;
      for (const f of t.auditFields) {
        const schema = props[f];
        const flag = schema?.type === "boolean" || Array.isArray(schema?.enum);
        expect(flag || (schema?.type === "string" && idLike.has(f)), `${t.name}.${f}`).toBe(true);
      }
    }
  });
});
