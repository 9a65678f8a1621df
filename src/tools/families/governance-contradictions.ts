/**
 * contradiction_report (rule: src/kb/core/contradictions.ts) and conflict_resolve, which
 * settles the contradictions recorded on one concept through store plans, as one batch.
 */

import { KbError } from "../../common/errors.js";
import type { WritePlan } from "../../kb/core/api.js";
import { findContradictions, withoutContradiction } from "../../kb/core/contradictions.js";
import { validateId } from "../../kb/core/ids.js";
import type { ConceptDoc, Frontmatter } from "../../kb/core/types.js";
import { defineTool } from "../define.js";
import { enumOf, nonEmptyStr, opt, str } from "../schema.js";
import type { ToolSpec } from "../spec.js";
import { contradictionRecords } from "../support/contradiction-records.js";

const under = (id: string, prefix: string) => id === prefix || id.startsWith(`${prefix}/`);

const contradictionReport = defineTool({
  name: "contradiction_report",
  // Go v0.5 argument names (docs/migrating-from-go.md).
  aliases: { scope: "prefix" },
  description:
    "Pairs of concepts that contradict: a contradicts/conflicts_with frontmatter field naming the other, or each superseded_by the other. prefix limits to ids under it.",
  args: { prefix: opt(str()) },
  readOnly: true,
  advanced: false,
  idempotent: true,
  resource: "collection",
  auditFields: [],
  wholeKbPass: () => true,
  handler: async (args, ctx) => {
    const prefix = args.prefix?.replace(/\/+$/, "") || undefined;
    // Only visible concepts take part: a pair with a hidden end is not reported at all (D118).
    const { ids, docs } = await contradictionRecords(ctx.runtime.store, ctx.visibility);
    const pairs = findContradictions(docs).filter((p) => {
      if (prefix && !under(p.a, prefix) && !under(p.b, prefix)) return false;
      // A missing end is reported only to a caller who sees everything (else hidden = missing).
      return (ids.has(p.a) && ids.has(p.b)) || ctx.visibility.all;
    });
    return {
      contradictions: pairs.map((p) => ({
        ...p,
        ...(!ids.has(p.a) || !ids.has(p.b)
          ? { missing: [p.a, p.b].filter((i) => !ids.has(i)) }
          : {}),
      })),
      total: pairs.length,
    };
  },
});

const RESOLUTIONS = ["keep", "dismiss"] as const;

/** New frontmatter of the concept being resolved. */
function resolvedSelf(doc: ConceptDoc, others: ReadonlySet<string>): Frontmatter {
  const fm = withoutContradiction(doc.frontmatter, others);
  const by = fm.superseded_by;
  if (typeof by === "string" && others.has(by)) {
    delete fm.superseded_by;
    if (fm.status === "superseded") delete fm.status;
  }
  return fm;
}

const conflictResolve = defineTool({
  name: "conflict_resolve",
  description:
    "Settle the contradictions recorded on concept id. resolution keep: id stands, the others become superseded_by id; dismiss: clear the records only. body optionally replaces id's body. Errors: not_found, invalid_argument when none is recorded.",
  args: { id: nonEmptyStr(), resolution: enumOf(RESOLUTIONS), body: opt(str()) },
  readOnly: false,
  advanced: false,
  resource: "whole",
  auditFields: ["id"],
  wholeKbPass: () => true,
  handler: async (args, ctx) => {
    const { id, resolution, body } = args;
    validateId(id);
    const { store } = ctx.runtime;
    // The rule's fields of every concept (streamed), then only the concepts it changes, whole.
    const { docs } = await contradictionRecords(store, { all: true });
    const self = await store.readConcept(id);
    const pairs = findContradictions(docs).filter((p) => p.a === id || p.b === id);
    const others = new Set(pairs.map((p) => (p.a === id ? p.b : p.a)));
    if (others.size === 0) {
      throw new KbError(
        "invalid_argument",
        `no recorded contradiction on ${id}: see contradiction_report for the pairs that exist`,
      );
    }
    const plans: WritePlan[] = [
      await store.planConceptWrite({
        id,
        frontmatter: resolvedSelf(self, others),
        body: body ?? self.body,
        ifMatch: self.hash,
        mode: "replace",
      }),
    ];
    const changed: string[] = [];
    for (const otherId of [...others].sort()) {
      const other = await store.tryReadConcept(otherId);
      if (!other) continue; // a dangling record: clearing it on `id` is all there is to do
      let fm = withoutContradiction(other.frontmatter, new Set([id]));
      // keep: the others yield to `id`. dismiss of a supersession cycle drops only `id`'s own
      // pointer (resolvedSelf), which leaves a plain, acyclic supersession.
      if (resolution === "keep") fm = { ...fm, status: "superseded", superseded_by: id };
      plans.push(
        await store.planConceptWrite({
          id: otherId,
          frontmatter: fm,
          body: other.body,
          ifMatch: other.hash,
          mode: "replace",
        }),
      );
      changed.push(otherId);
    }
    const plan = plans.length === 1 ? (plans[0] as WritePlan) : store.planBatch(plans, id);
    await ctx.runtime.apply(plan);
    const after = await store.readConcept(id);
    return {
      id,
      resolution,
      hash: after.hash,
      resolved_with: [...others].sort(),
      ...(resolution === "keep" ? { superseded: changed } : { updated: changed }),
    };
  },
});

export const contradictionTools: ToolSpec[] = [contradictionReport, conflictResolve];
