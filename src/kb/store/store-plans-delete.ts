/**
 * concept_delete. An expanded concept owns its folder: deleting only its index.md would orphan
 * the satellites (lint: expanded_missing_index), so that is refused unless the whole folder goes.
 * An id with both files (expanded_ambiguous) is resolved by deleting exactly one named variant.
 */

import { KbError } from "../../common/errors.js";
import type { ConceptDeleteInput, WritePlan } from "../core/api.js";
import { contentHash } from "../core/hash.js";
import { candidatePaths, validateId } from "../core/ids.js";
import { checkIfMatch, type PlanContext } from "../core/plan-context.js";
import type { MapDescriptor } from "../core/types.js";
import { filesUnderDir } from "./assets.js";
import { readTextOrNull } from "./fsutil.js";
import { ambiguousError, conceptIdOf, notFound, resolveConcept } from "./store-read.js";

const SHOWN = 20;

export async function planConceptDelete(
  ctx: PlanContext,
  input: ConceptDeleteInput,
): Promise<WritePlan> {
  validateId(input.id);
  const maps = await ctx.maps();
  const existing = await resolveConcept(ctx.root, input.id, maps);
  if (!existing) throw notFound(input.id);
  const [flat, expanded] = candidatePaths(input.id);
  if (input.variant !== undefined) {
    if (!existing.ambiguous) {
      throw new KbError(
        "invalid_argument",
        `'variant' is only for an id stored as both ${flat} and ${expanded}; "${input.id}" has one file (${existing.path}): omit variant`,
        { argument: "variant" },
      );
    }
    if (input.recursive) {
      throw new KbError("invalid_argument", "pass either variant or recursive, not both", {
        argument: "variant",
      });
    }
  } else if (existing.ambiguous) {
    throw ambiguousError(input.id);
  }
  const path = input.variant === "expanded" ? expanded : existing.path;
  // Ambiguous means both files exist; the expanded one is read only when it is the one chosen.
  const text = path === existing.path ? existing.text : await readTextOrNull(ctx.root, path);
  if (text === null) throw notFound(input.id);
  checkIfMatch(`concept "${input.id}" (${path})`, contentHash(text), input.ifMatch);
  const result = { id: input.id, path, deleted: true };
  if (path !== expanded) {
    return { changes: [{ path, content: null }], target: input.id, touchedIds: [input.id], result };
  }
  const rest = await satelliteFiles(ctx.root, input.id);
  if (rest.length > 0 && !input.recursive) throw notEmpty(input.id, rest, input.variant);
  const paths = [expanded, ...rest];
  return {
    changes: paths.map((p) => ({ path: p, content: null })),
    target: input.id,
    touchedIds: [input.id, ...satelliteIds(rest, maps)],
    result: rest.length > 0 ? { ...result, paths } : result,
  };
}

/**
 * Every file under `<id>/` except its index.md (satellites, assets, anything else), sorted: what
 * a recursive delete removes, so authorization enumerates exactly what the plan deletes.
 */
export async function satelliteFiles(root: string, id: string): Promise<string[]> {
  validateId(id);
  const expanded = candidatePaths(id)[1];
  const dir = expanded.slice(0, -"/index.md".length);
  return (await filesUnderDir(root, dir)).filter((f) => f !== expanded);
}

function satelliteIds(files: string[], maps: readonly MapDescriptor[]): string[] {
  return files
    .map((f) => conceptIdOf(f, maps))
    .filter((id): id is string => id !== null)
    .sort();
}

function notEmpty(id: string, rest: string[], variant: string | undefined): KbError {
  const shown = rest.slice(0, SHOWN).join(", ");
  const more = rest.length > SHOWN ? `, +${rest.length - SHOWN} more` : "";
  const way =
    variant === "expanded"
      ? 'or delete variant "flat" instead'
      : "or pass recursive: true to delete the whole folder";
  return new KbError(
    "not_empty",
    `concept "${id}" is expanded and its folder still holds ${rest.length} file(s): ${shown}${more}; move or delete them first, ${way}`,
    { remaining: rest },
  );
}
