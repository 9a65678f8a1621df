/**
 * Sync facts as a caller may see them (docs/decisions.md): conflict ids and git messages name
 * concepts, and a principal limited to some maps or types must learn nothing of the others, as
 * conflicts_list already did. Used by the call pipeline's sync step and the sync tools.
 */
import { isValidId, pathToId, placementOf } from "../../kb/core/ids.js";
import type { Visibility } from "../../kb/core/types.js";
import { isVisible } from "../../kb/core/visibility.js";
import type { ToolRuntime } from "../tool-runtime.js";

/** The concept ids among `ids` the caller may see (a non-concept path: whole-KB readers only). */
export async function visibleIds(
  runtime: ToolRuntime,
  visibility: Visibility,
  ids: readonly string[],
): Promise<string[]> {
  if (visibility.all) return [...ids];
  const maps = await runtime.store.maps();
  const out: string[] = [];
  for (const id of ids) {
    if (id.endsWith(".md") || !isValidId(id)) continue; // a registry path, not a concept
    const doc = await runtime.store.tryReadConcept(id).catch(() => null);
    if (isVisible(visibility, doc ?? placementOf(id, maps), doc?.type ?? null)) out.push(id);
  }
  return out;
}

/** Concept paths of the KB (data/…, services/…) as git names them in its messages. */
const KB_PATH = /\b(?:data|services)\/[^\s'",;:()]+/g;

/**
 * A sync message (`last_error`, a git error) as the caller may read it: the
 * ids of a `conflict: …` list it cannot see are left out, and any concept path git names that
 * it cannot see becomes `(hidden)`. Whole-KB readers get it unchanged.
 */
export async function visibleSyncText(
  runtime: ToolRuntime,
  visibility: Visibility,
  text: string | null,
): Promise<string | null> {
  if (text === null || visibility.all) return text;
  if (text.startsWith("conflict: ")) {
    const seen = await visibleIds(runtime, visibility, text.slice(10).split(", "));
    return seen.length > 0
      ? `conflict: ${seen.join(", ")}`
      : "conflict: pushes are paused until a registered conflict is resolved";
  }
  let out = text;
  for (const path of new Set(text.match(KB_PATH) ?? [])) {
    const id = pathToId(path);
    const seen = id !== null && (await visibleIds(runtime, visibility, [id])).length > 0;
    if (!seen) out = out.split(path).join("(hidden)");
  }
  return out;
}
