import type { Placement, SelectorRule, Visibility } from "./types.js";

/** True when a concept at `placement` with `type` is visible under `visibility` (pure). */
export function isVisible(
  visibility: Visibility,
  placement: Placement,
  type: string | null,
): boolean {
  if (visibility.all) return true;
  return visibility.rules.some((rule) => ruleMatches(rule, placement, type));
}

export function ruleMatches(
  rule: SelectorRule,
  placement: Placement,
  type: string | null,
): boolean {
  const containers = [...rule.maps, ...rule.journals];
  if (containers.length > 0) {
    const inMap = placement.map !== null && rule.maps.includes(placement.map);
    const inJournal = placement.journal !== null && rule.journals.includes(placement.journal);
    if (!inMap && !inJournal) return false;
  }
  if (rule.types.length > 0 && (type === null || !rule.types.includes(type))) return false;
  return true;
}
