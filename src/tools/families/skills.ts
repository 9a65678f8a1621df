/**
 * Agent skills: the KB's own `skills/<name>/SKILL.md` plus the skills bundled with Cartographer
 * (repo-root `skills/`, shipped in the package), which skill_install copies into the KB.
 */
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { KbError } from "../../common/errors.js";
import { parseDocument } from "../../kb/core/frontmatter.js";
import { defineTool } from "../define.js";
import { nonEmptyStr } from "../schema.js";
import type { ToolSpec } from "../spec.js";
import {
  effectiveArtifacts,
  PACKAGE_ROOT,
  summary,
  wireFile,
} from "../support/artifact-manifest.js";
import { applyPlan } from "../support/write-plan.js";

/** The bundled skills folder (also what artifact_manifest offers as source `bundle`). */
export const BUNDLED_SKILLS_DIR = path.join(PACKAGE_ROOT, "skills");

export interface BundledSkill {
  name: string;
  description: string;
  version: string | null;
  dir: string;
}

/** The bundled skills, sorted by name (folders without a SKILL.md are skipped). */
export async function bundledSkills(dir = BUNDLED_SKILLS_DIR): Promise<BundledSkill[]> {
  let entries: string[];
  try {
    entries = (await readdir(dir, { withFileTypes: true }))
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
  } catch {
    return [];
  }
  const skills: BundledSkill[] = [];
  for (const name of entries.sort()) {
    const text = await readFile(path.join(dir, name, "SKILL.md"), "utf8").catch(() => null);
    if (text === null) continue;
    const { frontmatter } = parseDocument(text);
    skills.push({
      name,
      description: typeof frontmatter.description === "string" ? frontmatter.description : "",
      version:
        frontmatter.version === undefined || frontmatter.version === null
          ? null
          : String(frontmatter.version),
      dir: path.join(dir, name),
    });
  }
  return skills;
}

/** Every file of a bundled skill, keyed by its POSIX path relative to the skill folder. */
export async function skillFiles(dir: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  const walk = async (rel: string): Promise<void> => {
    for (const entry of await readdir(path.join(dir, rel), { withFileTypes: true })) {
      const child = rel === "" ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory()) await walk(child);
      else if (entry.isFile()) files[child] = await readFile(path.join(dir, child), "utf8");
    }
  };
  await walk("");
  return files;
}

const skillList = defineTool({
  name: "skill_list",
  description:
    "List the KB's skills and the bundled ones (bundled: true; install with skill_install).",
  readOnly: true,
  advanced: true,
  idempotent: true,
  resource: "whole",
  auditFields: [],
  handler: async (_args, ctx) => {
    const installed = await ctx.runtime.store.skills();
    const names = new Set(installed.map((s) => s.name));
    const bundled = await bundledSkills();
    return {
      skills: [
        ...installed.map((s) => ({ ...s, bundled: false })),
        ...bundled.map((b) => ({
          name: b.name,
          description: b.description,
          version: b.version,
          bundled: true,
          installed: names.has(b.name),
        })),
      ],
    };
  },
});

/** Listed with the provisioning reads (provisioning.ts), in the place the golden tools/list pins. */
export const skillGet = defineTool({
  name: "skill_get",
  description:
    "One skill (the KB's, else the bundled one) with every file, version, source and content_hash. Errors: not_found (lists the skills).",
  args: { name: nonEmptyStr() },
  readOnly: true,
  advanced: true,
  idempotent: true,
  resource: "collection",
  auditFields: ["name"],
  handler: async (args, ctx) => {
    const { artifacts } = await effectiveArtifacts(ctx);
    const skills = artifacts.filter((a) => a.kind === "skill");
    const skill = skills.find((s) => s.name === args.name);
    if (!skill) {
      const known = skills.map((s) => s.name).join(", ") || "none";
      throw new KbError("not_found", `no skill named ${args.name} (skills: ${known})`);
    }
    return { ...summary(skill), files: skill.files.map(wireFile), signature: skill.signature };
  },
});

const skillInstall = defineTool({
  name: "skill_install",
  description:
    "Copy a bundled skill into the KB's skills/<name>/. Errors: not_found (lists bundled skills).",
  args: { name: nonEmptyStr() },
  readOnly: false,
  advanced: true,
  resource: "whole",
  auditFields: ["name"],
  handler: async (args, ctx) => {
    const { name } = args;
    const bundled = await bundledSkills();
    const skill = bundled.find((s) => s.name === name);
    if (!skill) {
      const known = bundled.map((s) => s.name).join(", ") || "none";
      throw new KbError("not_found", `no bundled skill named ${name} (bundled: ${known})`);
    }
    const plan = await ctx.runtime.store.planSkillInstall({
      name,
      files: await skillFiles(skill.dir),
    });
    return applyPlan(ctx, plan);
  },
});

export const skillTools: ToolSpec[] = [skillList, skillInstall];
