/**
 * The ViewScope of one viewer on one KB for one page: the ids it may see, judged as every read
 * tool judges them (tools/support/sync-visibility.ts: placement from the maps, the current type
 * from the file; a deleted concept has no type, so a type-restricted rule hides it — fail
 * closed). Answers are cached for the page's life only.
 */
import type { Visibility } from "../../kb/core/types.js";
import { visibleIds } from "../../tools/support/sync-visibility.js";
import type { ToolRuntime } from "../../tools/tool-runtime.js";
import type { ViewScope } from "./commit-view.js";

export function viewScope(runtime: ToolRuntime, visibility: Visibility): ViewScope {
  const known = new Map<string, boolean>();
  return {
    all: visibility.all,
    async visibleIds(ids) {
      const unknown = [...new Set(ids)].filter((id) => !known.has(id));
      if (unknown.length > 0) {
        const seen = new Set(await visibleIds(runtime, visibility, unknown));
        for (const id of unknown) known.set(id, seen.has(id));
      }
      return new Set(ids.filter((id) => known.get(id) === true));
    },
  };
}
