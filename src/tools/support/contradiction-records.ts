/**
 * What the contradiction rule (kb/contradictions.ts) reads, gathered in one streamed pass: the
 * ids of the concepts `visibility` shows, and for those that set any, the contradiction and
 * supersession fields alone, copied (docs/decisions.md "Whole-KB passes stream").
 */
import type { KbStore } from "../../kb/core/api.js";
import { CONTRADICTION_FIELDS } from "../../kb/core/contradictions.js";
import { detached } from "../../kb/core/detach.js";
import type { ConceptDoc, Frontmatter, Visibility } from "../../kb/core/types.js";
import { docVisible } from "./visibility.js";

export interface ContradictionRecords {
  /** Every visible concept id. */
  ids: Set<string>;
  /** The visible concepts that record a contradiction or a supersession, with those fields. */
  docs: Array<Pick<ConceptDoc, "id" | "frontmatter">>;
}

const RULE_FIELDS = [...CONTRADICTION_FIELDS, "superseded_by"];

export async function contradictionRecords(
  store: KbStore,
  visibility: Visibility,
): Promise<ContradictionRecords> {
  const files = await store.scanConceptFiles();
  const out: ContradictionRecords = { ids: new Set(), docs: [] };
  for await (const doc of store.streamConcepts(files)) {
    if (!docVisible(visibility, doc)) continue;
    out.ids.add(doc.id);
    const fields = ruleFields(doc.frontmatter);
    if (fields) out.docs.push({ id: doc.id, frontmatter: fields });
  }
  return out;
}

/** The frontmatter fields the rule reads (copied), or null when none is set. */
function ruleFields(fm: Frontmatter): Frontmatter | null {
  const out: Frontmatter = {};
  for (const key of RULE_FIELDS) {
    const v = fm[key];
    if (v === undefined) continue;
    out[key] = Array.isArray(v)
      ? v.map((x) => (typeof x === "string" ? detached(x) : x))
      : typeof v === "string"
        ? detached(v)
        : v;
  }
  return Object.keys(out).length > 0 ? out : null;
}
