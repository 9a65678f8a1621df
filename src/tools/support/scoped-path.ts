/**
 * The path of a curated index or log: the root one (`data/<file>`) without a scope, else the
 * named map's, which must exist.
 */
import { KbError } from "../../common/errors.js";
import { validateId } from "../../kb/core/ids.js";
import type { ToolContext } from "../spec.js";

export async function scopedPath(
  ctx: ToolContext,
  scope: string | undefined,
  file: "index.md" | "log.md",
): Promise<string> {
  if (!scope) return `data/${file}`;
  validateId(scope);
  if (!(await ctx.runtime.store.maps()).some((m) => m.name === scope)) {
    throw new KbError("not_found", `no map "${scope}": check the name with map_list`);
  }
  return `data/${scope}/${file}`;
}
