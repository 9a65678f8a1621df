/**
 * Visibility helpers for in-memory collections of the read tools (D118): a hidden concept never
 * appears in a result, a count or a total. Index queries take the visibility directly instead.
 */
import { placementOf } from "../../kb/core/ids.js";
import type { ConceptDoc, MapDescriptor, Visibility } from "../../kb/core/types.js";
import { isVisible } from "../../kb/core/visibility.js";

export function docVisible(visibility: Visibility, doc: ConceptDoc): boolean {
  return isVisible(visibility, doc, doc.type);
}

/**
 * An id known only by name (a deleted concept, a link target): visible by placement, with its
 * type when known. An unknown type is `null`, so a type-restricted rule hides it (fail closed).
 */
export function idVisible(
  visibility: Visibility,
  id: string,
  maps: readonly MapDescriptor[],
  type: string | null,
): boolean {
  return isVisible(visibility, placementOf(id, maps), type);
}

/** A map or journal is listed when some rule could show a concept inside it. */
export function mapVisible(visibility: Visibility, desc: MapDescriptor): boolean {
  if (visibility.all) return true;
  return visibility.rules.some((rule) => {
    if (rule.maps.length === 0 && rule.journals.length === 0) return true;
    return desc.kind === "journal"
      ? rule.journals.includes(desc.name)
      : rule.maps.includes(desc.name);
  });
}
