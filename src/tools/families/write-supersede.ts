/**
 * supersede: marks a concept as replaced by another — frontmatter `status: superseded` and
 * `superseded_by: <by>`, plus a note with a `[[by]]` link at the end of the body so readers
 * and the link graph both find the successor.
 */
import { KbError } from "../../common/errors.js";
import { defineTool } from "../define.js";
import { nonEmptyStr, opt, str } from "../schema.js";
import type { ToolSpec } from "../spec.js";
import { applyPlan } from "../support/write-plan.js";

export function supersedeNote(by: string, reason: string | undefined): string {
  return reason ? `> Superseded by [[${by}]]: ${reason}` : `> Superseded by [[${by}]].`;
}

export const supersedeTool: ToolSpec = defineTool({
  name: "supersede",
  // Go v0.5 argument names (docs/migrating-from-go.md).
  aliases: { source_id: "id", target_id: "by" },
  description:
    "Mark concept id as superseded by concept by (status, superseded_by, body note). Errors: not_found.",
  args: { id: nonEmptyStr(), by: nonEmptyStr(), reason: opt(str()) },
  readOnly: false,
  advanced: false,
  idempotent: true,
  resource: "exact",
  auditFields: ["id", "by"],
  targets: (args) => [
    { id: String(args.id ?? ""), write: true },
    { id: String(args.by ?? ""), write: false },
  ],
  handler: async (args, ctx) => {
    const { id, by } = args;
    if (id === by)
      throw new KbError("invalid_argument", "'by' must name another concept than 'id'");
    const store = ctx.runtime.store;
    await store.readConcept(by);
    const doc = await store.readConcept(id);
    if (doc.frontmatter.superseded_by === by && doc.frontmatter.status === "superseded") {
      return { id, superseded_by: by, hash: doc.hash, unchanged: true };
    }
    const note = supersedeNote(by, args.reason);
    const body = doc.body.trimEnd() === "" ? `${note}\n` : `${doc.body.trimEnd()}\n\n${note}\n`;
    const plan = await store.planConceptWrite({
      id,
      frontmatter: { ...doc.frontmatter, status: "superseded", superseded_by: by },
      body,
      ifMatch: doc.hash,
      mode: "replace",
    });
    return { ...(await applyPlan(ctx, plan)), superseded_by: by };
  },
});
