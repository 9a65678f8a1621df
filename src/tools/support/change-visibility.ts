/**
 * changes_since per principal (docs/decisions.md "`changes_since` rebuilds commit subjects per
 * principal"): a record is listed only when its concept is visible, a hidden previous id (`from`)
 * is dropped, and commit subjects are rebuilt from the visible ids each commit touched — a subject
 * like `concept_move: secret/plan` or `concept_batch: public/hello and 1 more` never reaches a
 * principal who cannot see all of it.
 */
import type { ChangeRecord, KbStore } from "../../kb/core/api.js";
import type { Visibility } from "../../kb/core/types.js";
import { visibleSubjects } from "../../kb/git/history.js";
import { idVisible } from "./visibility.js";

/** The records `visibility` may see, each with only the subjects it may see; `commits` stripped. */
export async function visibleChanges(
  store: KbStore,
  visibility: Visibility,
  records: ChangeRecord[],
): Promise<ChangeRecord[]> {
  const maps = await store.maps();
  const types = new Map<string, string | null>();
  /** Current type of an id; a concept gone (moved away, deleted) has none. */
  const typeOf = async (id: string): Promise<string | null> => {
    if (!types.has(id)) {
      const doc = await store.tryReadConcept(id).catch(() => null);
      types.set(id, doc?.type ?? null);
    }
    return types.get(id) ?? null;
  };
  const out: ChangeRecord[] = [];
  for (const { commits, ...rec } of records) {
    // Deleted concepts have no type any more: placement decides, type-restricted rules hide them.
    const type = rec.change === "deleted" ? null : await typeOf(rec.id);
    if (!idVisible(visibility, rec.id, maps, type)) continue;
    // The previous id of a move is the same concept: judged with its current type.
    const fromVisible = rec.from !== undefined && idVisible(visibility, rec.from, maps, type);
    if (visibility.all) {
      out.push(rec);
      continue;
    }
    const shown = new Set<string>([rec.id]);
    if (fromVisible && rec.from !== undefined) shown.add(rec.from);
    for (const id of new Set((commits ?? []).flatMap((c) => c.ids))) {
      if (!shown.has(id) && idVisible(visibility, id, maps, await typeOf(id))) shown.add(id);
    }
    const subjects = visibleSubjects({ ...rec, commits }, (id) => shown.has(id));
    const { from, ...rest } = rec;
    out.push(fromVisible ? { ...rest, from, subjects } : { ...rest, subjects });
  }
  return out;
}
