/**
 * Every tool a bundled skill names is one the agent can see: bundled skills are written for the
 * default `agent` profile (what Claude Code, Codex, … connect with), and a client lists only
 * what tools/list advertises, so a skill naming a tool that profile hides cannot be followed
 * (docs/decisions.md, "Bundled skills name only agent-profile tools").
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  BUNDLED_SKILLS_DIR,
  bundledSkills,
  skillFiles,
} from "../../../src/tools/families/skills.js";
import { allTools } from "../../../src/tools/registry.js";

const tools = allTools();
const toolNames = new Set(tools.map((t) => t.name));
const agentVisible = new Set(tools.filter((t) => !t.advanced).map((t) => t.name));

/** Each lower-case word of the text, `snake_case` ones whole (tool names are such words). */
function words(text: string): string[] {
  return [...text.matchAll(/\b[a-z][a-z0-9_]*\b/g)].map((m) => m[0]);
}

/** Names written as a call, `` `name {…}` ``: tools the text tells the agent to call. */
function calls(text: string): string[] {
  return [...text.matchAll(/`([a-z][a-z0-9_]*) \{/g)].map((m) => m[1] as string);
}

async function skillTexts(): Promise<Array<{ skill: string; text: string }>> {
  const out: Array<{ skill: string; text: string }> = [];
  for (const skill of await bundledSkills()) {
    const files = await skillFiles(skill.dir);
    out.push({ skill: skill.name, text: Object.values(files).join("\n") });
  }
  return out;
}

describe("bundled skills and the agent profile", () => {
  it("finds the bundled skills", async () => {
    const names = (await bundledSkills()).map((s) => s.name);
    expect(names).toEqual(
      expect.arrayContaining([
        "cartographer-kb-loop",
        "kb-conflict-resolve",
        "kb-create",
        "kb-import",
      ]),
    );
    expect(readFileSync(join(BUNDLED_SKILLS_DIR, "kb-import", "SKILL.md"), "utf8")).toContain(
      "concept_batch",
    );
  });

  it("every tool a bundled skill names is listed in the agent profile", async () => {
    const hidden: string[] = [];
    for (const { skill, text } of await skillTexts()) {
      for (const word of new Set(words(text)))
        if (toolNames.has(word) && !agentVisible.has(word)) hidden.push(`${skill}: ${word}`);
    }
    expect(hidden).toEqual([]);
  });

  it("every call a bundled skill writes out names a registered tool", async () => {
    const unknown: string[] = [];
    for (const { skill, text } of await skillTexts()) {
      for (const name of new Set(calls(text)))
        if (!toolNames.has(name)) unknown.push(`${skill}: ${name}`);
    }
    expect(unknown).toEqual([]);
    // The check reads calls at all: the conflict skill writes several.
    const conflict = (await skillTexts()).find((s) => s.skill === "kb-conflict-resolve");
    expect(calls(conflict?.text ?? "")).toEqual(
      expect.arrayContaining(["conflict_resolve", "supersede"]),
    );
  });
});
