import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseDocument } from "../../../src/kb/core/frontmatter.js";
import {
  BUNDLED_SKILLS_DIR,
  bundledSkills,
  skillTools,
} from "../../../src/tools/families/skills.js";
import { allTools } from "../../../src/tools/registry.js";
import { callTool } from "../../support/call-tool.js";
import {
  commitCount,
  expectKbError,
  headSubject,
  makeTempKb,
  type TempKb,
  tool,
} from "../../support/tool-kb.js";

describe("bundled skills", () => {
  it("ship the KB-loop skill with name, description and version", async () => {
    const skills = await bundledSkills();
    const loop = skills.find((s) => s.name === "cartographer-kb-loop");
    expect(loop).toBeDefined();
    expect(loop?.description.length).toBeGreaterThan(20);
    expect(loop?.version).toBe("1.0");
    const text = await readFile(
      join(BUNDLED_SKILLS_DIR, "cartographer-kb-loop", "SKILL.md"),
      "utf8",
    );
    expect(parseDocument(text).frontmatter.name).toBe("cartographer-kb-loop");
    for (const name of [
      "atlas_overview",
      "search",
      "concept_read",
      "if_match",
      "log_append",
      "lint",
      "gate_check",
    ]) {
      expect(text, name).toContain(name);
    }
  });
});

/** Top-level argument names of an `{a, b: {…}, c?}` span (nested braces and values dropped). */
function argNames(inner: string): string[] {
  let flat = inner;
  while (/\{[^{}]*\}/.test(flat)) flat = flat.replace(/\{[^{}]*\}/g, "");
  return flat
    .split(",")
    .map((part) => (part.split(":")[0] ?? "").replace("?", "").trim())
    .filter((name) => name !== "" && name !== "…");
}

describe("the bundled skill names only tools and arguments that exist", () => {
  const tools = new Map(
    allTools().map((t) => [t.name, Object.keys(t.inputSchema.properties ?? {})] as const),
  );
  const anyArg = new Set([...tools.values()].flat());

  it("every `tool {args}` names a tool and its arguments; every snake_case name is a tool, argument or error code", async () => {
    const text = await readFile(
      join(BUNDLED_SKILLS_DIR, "cartographer-kb-loop", "SKILL.md"),
      "utf8",
    );
    const codes = new Set(
      [...(await readFile("src/common/errors.ts", "utf8")).matchAll(/\| "([a-z_]+)"/g)].map(
        (m) => m[1],
      ),
    );
    const spans = [...text.matchAll(/`([^`]+)`/g)].map((m) => m[1] ?? "");
    let calls = 0;
    for (const span of spans) {
      const call = /^([a-z]+(?:_[a-z]+)*) \{(.*)\}$/.exec(span);
      if (call) {
        calls++;
        const args = tools.get(call[1] ?? "");
        expect(args, `tool in \`${span}\``).toBeDefined();
        for (const name of argNames(call[2] ?? "")) expect(args, `\`${span}\``).toContain(name);
        continue;
      }
      for (const word of span.split(/[^a-z_]+/)) {
        if (!/^[a-z]+_[a-z_]+$/.test(word)) continue;
        const known = tools.has(word) || anyArg.has(word) || codes.has(word);
        expect(known, `\`${word}\` in \`${span}\` is no tool, argument or error code`).toBe(true);
      }
    }
    expect(calls).toBeGreaterThan(3);
  });
});

describe("skill_list / skill_install", () => {
  let kb: TempKb;
  beforeAll(async () => {
    kb = await makeTempKb();
  });
  afterAll(async () => kb.cleanup());

  it("lists bundled skills, installs one in one commit, then lists it as installed", async () => {
    const list = tool(skillTools, "skill_list");
    const first = (await callTool(kb.runtime, list, {})) as {
      skills: { name: string; bundled: boolean; installed?: boolean }[];
    };
    expect(first.skills).toContainEqual(
      expect.objectContaining({ name: "cartographer-kb-loop", bundled: true, installed: false }),
    );
    const before = commitCount(kb.root);
    await callTool(kb.runtime, tool(skillTools, "skill_install"), { name: "cartographer-kb-loop" });
    expect(commitCount(kb.root)).toBe(before + 1);
    expect(headSubject(kb.root)).toBe("skill_install: cartographer-kb-loop");
    const copied = await readFile(join(kb.root, "skills/cartographer-kb-loop/SKILL.md"), "utf8");
    expect(copied).toBe(
      await readFile(join(BUNDLED_SKILLS_DIR, "cartographer-kb-loop", "SKILL.md"), "utf8"),
    );
    const after = (await callTool(kb.runtime, list, {})) as {
      skills: { name: string; bundled: boolean; installed?: boolean }[];
    };
    expect(after.skills).toContainEqual(
      expect.objectContaining({ name: "cartographer-kb-loop", bundled: false }),
    );
    expect(after.skills).toContainEqual(
      expect.objectContaining({ name: "cartographer-kb-loop", bundled: true, installed: true }),
    );
  });

  it("an unknown skill is not_found, naming the bundled ones", async () => {
    const err = await expectKbError(
      () => callTool(kb.runtime, tool(skillTools, "skill_install"), { name: "nope" }),
      "not_found",
    );
    expect(err.message).toContain("cartographer-kb-loop");
  });
});
