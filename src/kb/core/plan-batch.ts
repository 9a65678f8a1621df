/** Merging validated plans into one (concept_batch): distinct files and ids, or nothing. Pure. */

import { KbError } from "../../common/errors.js";
import type { WritePlan } from "./api.js";

export function mergePlans(plans: WritePlan[], target: string): WritePlan {
  if (plans.length === 0)
    throw new KbError("invalid_argument", "a batch needs at least one operation");
  const paths = new Map<string, number>();
  const ids = new Map<string, number>();
  plans.forEach((plan, i) => {
    for (const c of plan.changes) {
      const prev = paths.get(c.path);
      if (prev !== undefined && prev !== i) {
        throw new KbError(
          "conflict",
          `operations ${prev + 1} and ${i + 1} both change ${c.path}: one operation per file`,
        );
      }
      paths.set(c.path, i);
    }
    for (const id of plan.touchedIds) {
      const prev = ids.get(id);
      if (prev !== undefined && prev !== i) {
        throw new KbError(
          "conflict",
          `operations ${prev + 1} and ${i + 1} both touch "${id}": ids in a batch must be distinct`,
        );
      }
      ids.set(id, i);
    }
  });
  return {
    changes: plans.flatMap((p) => p.changes),
    target,
    touchedIds: [...ids.keys()],
    result: { results: plans.map((p) => p.result) },
  };
}
