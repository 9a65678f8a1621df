/**
 * The ViewScope of one viewer on one KB for one page: the ids it may see, judged as every read
 * tool judges them (placement from the maps, the current type). Answered from the search index
 * (one query per 200 ids, no file read): an indexed id is judged with its indexed type; an id the
 * index does not hold (deleted, moved away, not yet indexed) by placement with no type, so a
 * type-restricted rule hides it — as tools/support/sync-visibility.ts does for a missing file
 * (fail closed). Exact: a type-free rule that matches an indexed id's placement matched it in the
 * index too. Answers are cached for the page's life only.
 */
import { placementOf } from "../../kb/core/ids.js";
import type { Visibility } from "../../kb/core/types.js";
import { isVisible } from "../../kb/core/visibility.js";
import type { ToolRuntime } from "../../tools/tool-runtime.js";
import type { ViewScope } from "./commit-view.js";

export function viewScope(runtime: ToolRuntime, visibility: Visibility): ViewScope {
  const known = new Map<string, boolean>();
  return {
    all: visibility.all,
    async visibleIds(ids) {
      if (visibility.all) return new Set(ids);
      const unknown = [...new Set(ids)].filter((id) => !known.has(id));
      if (unknown.length > 0) {
        const indexed = runtime.index.visibleIds(unknown, visibility);
        const maps = await runtime.store.maps();
        for (const id of unknown)
          known.set(id, indexed.has(id) || isVisible(visibility, placementOf(id, maps), null));
      }
      return new Set(ids.filter((id) => known.get(id) === true));
    },
  };
}
