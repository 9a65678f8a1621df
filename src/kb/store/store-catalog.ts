/** Listings of templates (`templates/*.md`) and skills (`skills/<name>/SKILL.md`). */
import type { SkillInfo, TemplateInfo } from "../core/api.js";
import { parseDocument } from "../core/frontmatter.js";
import { templateVariables } from "../core/templates.js";
import { listWalkDir, readTextOrNull } from "./fsutil.js";

export async function listTemplates(root: string): Promise<TemplateInfo[]> {
  const files = (await listWalkDir(root, "templates")).filter(
    (e) => e.isFile() && e.name.endsWith(".md"),
  );
  const out = await Promise.all(
    files.map(async (e) => {
      const path = `templates/${e.name}`;
      const text = (await readTextOrNull(root, path)) ?? "";
      return { name: e.name.slice(0, -3), variables: templateVariables(text), path };
    }),
  );
  return out.sort((a, b) => (a.name < b.name ? -1 : 1));
}

export async function listSkills(root: string): Promise<SkillInfo[]> {
  const dirs = (await listWalkDir(root, "skills")).filter((e) => e.isDirectory());
  const out = await Promise.all(
    dirs.map(async (e): Promise<SkillInfo | null> => {
      const path = `skills/${e.name}/SKILL.md`;
      // Listed through the walk rule: a SKILL.md that is a symlink is not read.
      const walked = await listWalkDir(root, `skills/${e.name}`);
      if (!walked.some((f) => f.name === "SKILL.md" && f.isFile())) return null;
      const text = await readTextOrNull(root, path);
      if (text === null) return null;
      let fm: Record<string, unknown> = {};
      try {
        fm = parseDocument(text).frontmatter;
      } catch {
        fm = {};
      }
      const name = typeof fm.name === "string" && fm.name ? fm.name : e.name;
      const description = typeof fm.description === "string" ? fm.description : "";
      return { name, description, path };
    }),
  );
  return out.filter((s): s is SkillInfo => s !== null).sort((a, b) => (a.name < b.name ? -1 : 1));
}
