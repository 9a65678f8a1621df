/**
 * The MCP requests that read KB content other than tools/call — resources/list and /read,
 * prompts/list and /get of the KB's skills, completion of ids and map names — written as
 * ToolSpecs that are never registered (tools/list does not show them) but run through the same
 * call pipeline as a tool (call-pipeline.ts): authorization by resource class, hidden ≡ missing,
 * audit attempt and completion under the request's method name. Each mirrors the tool that
 * reads the same thing, with the same resource class:
 *
 *   resources/list           ≈ concept_list    collection (visibility in SQL, before the page)
 *   resources/read concept   ≈ concept_read    exact
 *   resources/read ~index    ≈ index_get       whole
 *   resources/read ~instr.   ≈ atlas_overview  collection
 *   prompts/list, prompts/get ≈ skill_list     whole
 *   completion/complete      ≈ concept_list / map_list  collection
 */

import { KbError } from "../common/errors.js";
import { parseDocument } from "../kb/core/frontmatter.js";
import { validateId } from "../kb/core/ids.js";
import { defineTool } from "../tools/define.js";
import { enumOf, int, nonEmptyStr, opt, str } from "../tools/schema.js";
import { seesKbArtifacts } from "../tools/support/artifact-manifest.js";
import { mapVisible } from "../tools/support/visibility.js";

/** Concepts per resources/list page. */
export const RESOURCE_PAGE = 200;
/** Most values one completion answers (the protocol's own cap is 100). */
export const COMPLETION_MAX = 100;

function notFound(what: string): KbError {
  return new KbError("not_found", `${what} not found`);
}

export const listResources = defineTool({
  name: "resources/list",
  description: "Concepts of the KB as resources, one page from an id on.",
  args: {
    from: opt(nonEmptyStr()),
    limit: opt(int({ min: 1, max: 1000 }), RESOURCE_PAGE),
  },
  readOnly: true,
  advanced: true,
  resource: "collection",
  auditFields: [],
  handler: async ({ from, limit }, ctx) => {
    // A build under way: wait for it as search does (bounded), then say the page is partial.
    const building = await ctx.runtime.awaitIndex();
    // Keyset paging (ids ≥ from) with visibility in SQL, before the limit (D118); one row more
    // than the page tells where the next page starts.
    const r = ctx.runtime.index.list({ from, limit: limit + 1, visibility: ctx.visibility });
    const page = r.items.slice(0, limit);
    const items = page.map((i) => ({ id: i.id, title: i.title, type: i.type }));
    const first = from === undefined;
    // The curated indexes are a whole-KB read (index_get), and so is instructions.md, a KB-level
    // artifact (artifact_read, seesKbArtifacts): a narrower reader is not shown them.
    const indexes = first && ctx.visibility.all;
    const mapIndexes: string[] = [];
    if (indexes)
      for (const m of await ctx.runtime.store.maps())
        if ((await ctx.runtime.store.readText(`data/${m.name}/index.md`)) !== null)
          mapIndexes.push(m.name);
    return {
      items,
      next: r.items[limit]?.id ?? null,
      building,
      index: indexes,
      mapIndexes,
      instructions:
        first &&
        seesKbArtifacts(ctx.visibility) &&
        (await ctx.runtime.store.readText("instructions.md")) !== null,
    };
  },
});

export const readConceptResource = defineTool({
  name: "resources/read",
  description: "A concept's Markdown file as written.",
  args: { id: nonEmptyStr(), uri: str() },
  readOnly: true,
  advanced: true,
  resource: "exact",
  auditFields: ["id", "uri"],
  targets: (args) => (typeof args.id === "string" ? [{ id: args.id, write: false }] : []),
  handler: async ({ id }, ctx) => {
    validateId(id);
    const doc = await ctx.runtime.store.readConcept(id);
    const text = await ctx.runtime.store.readText(doc.path);
    if (text === null) throw notFound(`concept ${id}`);
    return { text };
  },
});

export const readIndexResource = defineTool({
  name: "resources/read",
  description: "A curated index: the root data/index.md, or a map's data/<map>/index.md.",
  args: { uri: str(), map: opt(nonEmptyStr()) },
  readOnly: true,
  advanced: true,
  resource: "whole",
  auditFields: ["uri", "map"],
  handler: async ({ map }, ctx) => {
    // Only a map's or journal's own folder index (an expanded concept's index.md is a concept).
    if (map !== undefined && !(await ctx.runtime.store.maps()).some((m) => m.name === map))
      throw notFound("index");
    const text = await ctx.runtime.store.readText(
      map === undefined ? "data/index.md" : `data/${map}/index.md`,
    );
    if (text === null) throw notFound("index");
    return { text };
  },
});

export const readInstructionsResource = defineTool({
  name: "resources/read",
  // A KB-level artifact: the whole-KB read rule of artifact_read, fail closed (D118).
  description: "The KB's instructions.md for agents.",
  args: { uri: str() },
  readOnly: true,
  advanced: true,
  resource: "whole",
  auditFields: ["uri"],
  handler: async (_args, ctx) => {
    const text = await ctx.runtime.store.readText("instructions.md");
    if (text === null) throw notFound("instructions");
    return { text };
  },
});

export const listSkillPrompts = defineTool({
  name: "prompts/list",
  description: "The KB's skills with their declared arguments.",
  readOnly: true,
  advanced: true,
  resource: "whole",
  auditFields: [],
  handler: async (_args, ctx) => {
    const skills = await ctx.runtime.store.skills();
    const out = [];
    for (const s of skills) {
      const text = await ctx.runtime.store.readText(s.path);
      if (text === null) continue;
      out.push({ name: s.name, description: s.description, arguments: declaredArgs(text) });
    }
    return { skills: out };
  },
});

export const getSkillPrompt = defineTool({
  name: "prompts/get",
  description: "One KB skill's SKILL.md.",
  args: { name: nonEmptyStr() },
  readOnly: true,
  advanced: true,
  resource: "whole",
  auditFields: ["name"],
  handler: async ({ name }, ctx) => {
    const skill = (await ctx.runtime.store.skills()).find((s) => s.name === name);
    const text = skill ? await ctx.runtime.store.readText(skill.path) : null;
    if (!skill || text === null) throw notFound(`prompt ${name}`);
    return { description: skill.description, text };
  },
});

export const completeValues = defineTool({
  name: "completion/complete",
  description: "Concept ids or map names that start with a value, as the caller may see them.",
  args: { kind: enumOf(["id", "map"] as const), value: str() },
  readOnly: true,
  advanced: true,
  resource: "collection",
  auditFields: ["kind"],
  handler: async ({ kind, value }, ctx) => {
    if (kind === "map") {
      const maps = (await ctx.runtime.store.maps()).filter((m) => mapVisible(ctx.visibility, m));
      const names = maps.map((m) => m.name).filter((n) => n.startsWith(value));
      return { values: names.slice(0, COMPLETION_MAX), more: names.length > COMPLETION_MAX };
    }
    // Narrow by the folder already typed (an id prefix in SQL), then by the partial segment.
    const folder = value.includes("/") ? value.slice(0, value.lastIndexOf("/")) : undefined;
    let prefix: string | undefined = folder;
    try {
      if (folder !== undefined) validateId(folder);
    } catch {
      return { values: [], total: 0 };
    }
    if (prefix === "") prefix = undefined;
    // A build under way: wait as search does (bounded); still building, more may exist.
    const building = await ctx.runtime.awaitIndex();
    // Ids starting with `value` are contiguous in id order from `value` on.
    const r = ctx.runtime.index.list({
      prefix,
      ...(value === "" ? {} : { from: value }),
      limit: COMPLETION_MAX + 1,
      visibility: ctx.visibility,
    });
    const ids = r.items.map((i) => i.id).filter((id) => id.startsWith(value));
    return {
      values: ids.slice(0, COMPLETION_MAX),
      more: ids.length > COMPLETION_MAX || building !== null,
    };
  },
});

export interface PromptArg {
  name: string;
  required: boolean;
}

/**
 * A skill's arguments from its frontmatter `arguments` (a list of names; `name?` = optional).
 * Without the key, one optional `request`: what the user wants done, appended to the skill.
 */
export function declaredArgs(text: string): PromptArg[] {
  let fm: Record<string, unknown> = {};
  try {
    fm = parseDocument(text).frontmatter;
  } catch {
    fm = {};
  }
  const raw = fm.arguments;
  const names = Array.isArray(raw) ? raw : typeof raw === "string" && raw !== "" ? [raw] : null;
  if (names === null) return [{ name: "request", required: false }];
  return names
    .filter((n): n is string => typeof n === "string" && n.replace(/\?$/, "") !== "")
    .map((n) => ({ name: n.replace(/\?$/, ""), required: !n.endsWith("?") }));
}
