/**
 * What the search index needs after a write, taken from the plan that was just applied instead
 * of read back from disk (docs/decisions.md "one pass per request"): the document of each
 * touched id is built from the text the plan wrote when that file is the one the id now resolves
 * to — its flat `<id>.md`, or its `<id>/index.md` when the same plan deleted the flat file.
 * Anything else (a delete, an expanded file whose flat twin may exist, a file the plan did not
 * write) is read as before.
 */
import type { KbStore, WritePlan } from "../core/api.js";
import { candidatePaths, isValidId } from "../core/ids.js";
import type { ConceptDoc } from "../core/types.js";
import { toConceptDoc } from "./store-read.js";

/** The document of each of `plan.touchedIds`, in order; null when the id no longer resolves. */
export async function plannedDocs(
  store: Pick<KbStore, "maps" | "tryReadConcept">,
  plan: WritePlan,
): Promise<Array<ConceptDoc | null>> {
  const written = new Map(plan.changes.map((c) => [c.path, c.content]));
  const maps = await store.maps();
  return Promise.all(
    plan.touchedIds.map((id) => {
      if (!isValidId(id)) return store.tryReadConcept(id);
      const [flat, expanded] = candidatePaths(id);
      const flatText = written.get(flat);
      if (typeof flatText === "string") return toConceptDoc(id, flat, flatText, maps);
      const isMapFolder = !id.includes("/") && maps.some((m) => m.name === id);
      const expandedText = written.get(expanded);
      if (flatText === null && !isMapFolder && typeof expandedText === "string")
        return toConceptDoc(id, expanded, expandedText, maps);
      return store.tryReadConcept(id);
    }),
  );
}
