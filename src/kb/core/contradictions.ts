/**
 * The contradiction rule (pure). Two concepts contradict each other when
 *  1. either names the other in its `contradicts:` (or `conflicts_with:`) frontmatter field,
 *     a scalar id or a list of ids; or
 *  2. each names the other as `superseded_by` (a supersession cycle: neither can be current).
 * A pair is reported once, ordered by id, with the concepts that declared it.
 */
import type { ConceptDoc, FmValue, Frontmatter } from "./types.js";

export const CONTRADICTION_FIELDS = ["contradicts", "conflicts_with"] as const;

export interface Contradiction {
  a: string;
  b: string;
  rule: "declared" | "mutual_supersede";
  /** Concepts whose frontmatter records it. */
  declared_by: string[];
}

export function fmIds(v: FmValue | undefined): string[] {
  if (typeof v === "string") return v.trim() ? [v.trim()] : [];
  if (Array.isArray(v))
    return v.filter((x): x is string => typeof x === "string" && x.trim() !== "");
  return [];
}

/** Ids `doc` declares a contradiction with. */
export function declaredContradictions(fm: Frontmatter): string[] {
  return [...new Set(CONTRADICTION_FIELDS.flatMap((f) => fmIds(fm[f])))];
}

/** The pairs among `docs` (of each, the rule reads only its id and frontmatter). */
export function findContradictions(
  docs: readonly Pick<ConceptDoc, "id" | "frontmatter">[],
): Contradiction[] {
  const byId = new Map(docs.map((d) => [d.id, d]));
  const pairs = new Map<string, Contradiction>();
  const add = (x: string, y: string, rule: Contradiction["rule"], by: string) => {
    const [a, b] = x < y ? [x, y] : [y, x];
    const key = `${rule}\u0000${a}\u0000${b}`;
    const found = pairs.get(key) ?? { a, b, rule, declared_by: [] };
    if (!found.declared_by.includes(by)) found.declared_by.push(by);
    found.declared_by.sort();
    pairs.set(key, found);
  };
  for (const d of docs) {
    for (const other of declaredContradictions(d.frontmatter)) {
      if (other !== d.id) add(d.id, other, "declared", d.id);
    }
    const by = d.frontmatter.superseded_by;
    if (typeof by === "string" && by !== d.id && byId.get(by)?.frontmatter.superseded_by === d.id) {
      add(d.id, by, "mutual_supersede", d.id);
    }
  }
  return [...pairs.values()].sort((p, q) => p.a.localeCompare(q.a) || p.b.localeCompare(q.b));
}

/** Frontmatter without `remove` in the contradiction fields (a field left empty is dropped). */
export function withoutContradiction(fm: Frontmatter, remove: ReadonlySet<string>): Frontmatter {
  const out: Frontmatter = {};
  for (const [key, value] of Object.entries(fm)) {
    if (!(CONTRADICTION_FIELDS as readonly string[]).includes(key)) {
      out[key] = value;
      continue;
    }
    const kept = fmIds(value).filter((id) => !remove.has(id));
    if (kept.length === 0) continue;
    out[key] = Array.isArray(value) ? kept : (kept[0] as string);
  }
  return out;
}
