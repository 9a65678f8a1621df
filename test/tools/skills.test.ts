import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseDocument } from "../../src/kb/frontmatter.js";
import { BUNDLED_SKILLS_DIR, bundledSkills, skillTools } from "../../src/tools/families/skills.js";
import {
  callTool,
  commitCount,
  expectKbError,
  headSubject,
  makeTempKb,
  type TempKb,
  tool,
} from "./helpers.js";

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
