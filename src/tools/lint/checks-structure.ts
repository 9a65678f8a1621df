/**
 * Layout checks: concept_oversize, map_oversize, expanded_missing_index, expanded_ambiguous,
 * expanded_as_category. Pure.
 */
import type { LintCheck } from "./check.js";

export const conceptOversize: LintCheck = {
  name: "concept_oversize",
  severity: "warning",
  explanation: "A concept body over 60 KB: agents get only its outline; split it.",
  perDoc: ({ doc: d }, env) => {
    const bytes = Buffer.byteLength(d.body, "utf8");
    return bytes > env.limits.conceptBytes
      ? [{ id: d.id, message: `body is ${bytes} bytes (limit ${env.limits.conceptBytes})` }]
      : [];
  },
};

export const mapOversize: LintCheck = {
  name: "map_oversize",
  severity: "warning",
  explanation: "A map or journal holding more concepts than one agent can survey; split it.",
  run: (ctx) => {
    const counts = new Map<string, number>();
    for (const d of ctx.docs) {
      for (const name of new Set([d.map, d.journal])) {
        if (name !== null) counts.set(name, (counts.get(name) ?? 0) + 1);
      }
    }
    return ctx.maps.flatMap((m) => {
      const n = counts.get(m.name) ?? 0;
      return n > ctx.limits.mapConcepts
        ? [
            {
              path: m.path,
              message: `map ${m.name} holds ${n} concepts (limit ${ctx.limits.mapConcepts})`,
            },
          ]
        : [];
    });
  },
};

/** The folder id holding `id`, when that folder must itself be an expanded concept. */
function ownerFolder(id: string, mapNames: Set<string>): string | null {
  const segments = id.split("/");
  if (segments.length < 3 && !(segments[0] === "services" && segments.length >= 3)) return null;
  const parent = segments.slice(0, -1).join("/");
  if (parent === "services" || mapNames.has(parent)) return null;
  return parent;
}

export const expandedMissingIndex: LintCheck = {
  name: "expanded_missing_index",
  severity: "error",
  explanation: "A sub-folder holds concepts but has no index.md owning them (<folder>/index.md).",
  run: (ctx) => {
    const mapNames = new Set(ctx.maps.map((m) => m.name));
    const missing = new Map<string, string[]>();
    for (const d of ctx.docs) {
      const owner = ownerFolder(d.id, mapNames);
      if (owner === null || ctx.byId.get(owner)?.expanded) continue;
      const children = missing.get(owner);
      if (children) children.push(d.id);
      else missing.set(owner, [d.id]);
    }
    return [...missing].map(([owner, children]) => ({
      id: owner,
      message: `folder ${owner}/ holds ${children.join(", ")} but has no index.md`,
    }));
  },
};

export const expandedAmbiguous: LintCheck = {
  name: "expanded_ambiguous",
  severity: "error",
  explanation: "Both <id>.md and <id>/index.md exist: the id has two files.",
  run: (ctx) =>
    [...ctx.flatTwins].map((id) => ({
      id,
      message: `${id}.md and ${id}/index.md both exist; merge them into one`,
    })),
};

/** A line that carries no prose: blank, a heading, or a list item that is only a link. */
const NON_PROSE = /^\s*$|^\s*#{1,6}(\s|$)|^\s*[-*+]\s*(\[\[[^\]]+\]\]|\[[^\]]*\]\([^)]*\))\s*$/;

export const expandedAsCategory: LintCheck = {
  name: "expanded_as_category",
  severity: "warning",
  explanation:
    "An expanded concept whose index.md has no prose (headings and links only): a folder used as a category.",
  perDoc: ({ doc: d }) =>
    d.expanded && d.body.split("\n").every((l) => NON_PROSE.test(l))
      ? [{ id: d.id, message: "index.md has no prose: describe the concept it owns" }]
      : [],
};
