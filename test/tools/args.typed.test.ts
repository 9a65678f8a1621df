/**
 * Every tool's handler receives arguments parsed by ONE parser (args.ts via defineTool), so the
 * argument rules are the same for every family: a blank id-like string is refused with one text,
 * an explicit null is an absent optional argument, a batch operation is parsed and planned
 * exactly as its own tool does it. And tools/families holds tool families only, none with a
 * hand-written schema.
 */
import { readdir, readFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { allTools } from "../../src/tools/registry.js";
import { renderError } from "../../src/tools/result.js";
import type { ToolSpec } from "../../src/tools/spec.js";
import { callTool } from "../support/call-tool.js";
import { makeTempKb, type TempKb } from "../support/tool-kb.js";

const FAMILIES = new URL("../../src/tools/families/", import.meta.url);

let kb: TempKb;
beforeAll(async () => {
  kb = await makeTempKb({
    allowArtifactWrite: true,
    files: {
      "data/notes/_map.md": "---\ntype: Map\ntitle: Notes\nkind: map\n---\n# Notes\n",
      "data/notes/a.md": "---\ntype: note\ntitle: A\n---\nalpha body\n",
      "data/notes/b.md": "---\ntype: note\ntitle: B\n---\nbeta body\n",
      "data/log.md": "# Log\n\n## 2024-05-01T10:00:00Z\n\none\n",
    },
  });
});
afterAll(async () => kb.cleanup());

const spec = (name: string): ToolSpec => {
  const found = allTools().find((t) => t.name === name);
  if (!found) throw new Error(`no tool ${name}`);
  return found;
};
const call = (name: string, args: Record<string, unknown>) =>
  // biome-ignore lint/suspicious/noExplicitAny: results are plain JSON, checked field by field
  callTool(kb.runtime, spec(name), args) as Promise<any>;

async function errorText(name: string, args: Record<string, unknown>): Promise<string> {
  try {
    await call(name, args);
  } catch (err) {
    return renderError(err);
  }
  throw new Error(`${name} succeeded`);
}

describe("one argument parser for every tool", () => {
  it("a blank required id-like string gets the same refusal from read and write tools", async () => {
    const cases: [string, Record<string, unknown>, string][] = [
      ["concept_read", { id: "" }, "id"],
      ["graph_neighbors", { id: "" }, "id"],
      ["search", { query: "" }, "query"],
      ["changes_since", { since: "" }, "since"],
      ["conflict_resolve", { id: "", resolution: "keep" }, "id"],
      ["concept_write", { id: "", frontmatter: { type: "note" }, body: "" }, "id"],
      ["supersede", { id: "notes/a", by: "" }, "by"],
      ["map_delete", { name: "" }, "name"],
      ["asset_read", { path: "" }, "path"],
      ["skill_install", { name: "" }, "name"],
    ];
    for (const [name, args, field] of cases) {
      expect(await errorText(name, args), name).toBe(
        `invalid_argument: '${field}' is required: pass a non-empty string`,
      );
    }
  });

  it("an explicit null is an absent optional argument", async () => {
    const log = await call("log_tail", { scope: null, limit: null });
    expect(log.entries).toHaveLength(1);
    const read = await call("concept_read", { id: "notes/a", section: null, full: null });
    expect(read.body).toBe("alpha body\n");
    const patched = await call("concept_patch", {
      id: "notes/a",
      old_string: null,
      new_string: null,
      replace_all: null,
      edits: [{ old_string: "alpha", new_string: "ALPHA", replace_all: null }],
      frontmatter: null,
    });
    expect(patched.id).toBe("notes/a");
    const moved = await call("concept_move", {
      from: null,
      to: null,
      moves: [{ from: "notes/b", to: "notes/c" }],
      rewrite_links: null,
    });
    expect(moved.moves ?? moved).toBeTruthy();
    expect(await kb.runtime.store.tryReadConcept("notes/c")).not.toBeNull();
  });

  it("a blank optional scope means the root index; a blank move end is refused", async () => {
    const index = await call("index_get", { scope: "" });
    expect(index.path).toBe("data/index.md");
    expect(await errorText("concept_move", { from: "", to: "notes/d" })).toBe(
      "invalid_argument: 'from' is required: pass a non-empty string",
    );
  });

  it("a batch operation is refused with its own tool's words", async () => {
    const alone = await errorText("concept_patch", { id: "notes/a" });
    const inBatch = await errorText("concept_batch", {
      operations: [{ op: "patch", id: "notes/a" }],
    });
    expect(inBatch).toBe(
      alone.replace("invalid_argument: ", "invalid_argument: operations[0] (patch notes/a): "),
    );
  });
});

describe("tools/families holds tool families only", () => {
  it("no family hand-writes an input schema or reads raw arguments", async () => {
    for (const file of await readdir(FAMILIES)) {
      const text = await readFile(new URL(file, FAMILIES), "utf8");
      expect(text, file).not.toMatch(/\binputSchema\s*:/);
      expect(text, file).not.toMatch(/\bargs: Record<string, unknown>\b[^\n]*\bctx\b/);
    }
  });

  it("every module there exports tool specs", async () => {
    const names = new Set(allTools().map((t) => t.name));
    for (const file of await readdir(FAMILIES)) {
      const mod = (await import(new URL(file, FAMILIES).href)) as Record<string, unknown>;
      const specs = Object.values(mod)
        .flatMap((v) => (Array.isArray(v) ? v : [v]))
        .filter((v): v is ToolSpec => typeof v === "object" && v !== null && "handler" in v);
      expect(
        specs.some((s) => names.has(s.name)),
        `${file} exports no registered tool`,
      ).toBe(true);
    }
  });
});
