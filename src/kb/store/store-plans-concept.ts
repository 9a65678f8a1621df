/** Plans for single-concept mutations: write, patch, delete, expand, new-from-template. */

import { KbError } from "../../common/errors.js";
import type { ConceptPatchInput, ConceptWriteInput, WritePlan } from "../core/api.js";
import { applyEdits } from "../core/edits.js";
import { parseDocument, serializeDocument } from "../core/frontmatter.js";
import { contentHash } from "../core/hash.js";
import { candidatePaths, validateId } from "../core/ids.js";
import { rewriteLinks } from "../core/markdown.js";
import { checkIfMatch, type PlanContext } from "../core/plan-context.js";
import { renderTemplate } from "../core/templates.js";
import type { Frontmatter } from "../core/types.js";
import { checkFrontmatter, checkKey, checkValue, validateConceptWrite } from "../core/validate.js";
import { readTextOrNull, refuseWrongKinds } from "./fsutil.js";
import { refuseTooLargeConcept } from "./index-read.js";
import { ambiguousError, notFound, type Resolved, resolveConcept } from "./store-read.js";

export function refuseAmbiguous(id: string, r: Resolved | null): void {
  if (r?.ambiguous) throw ambiguousError(id);
}

/** concept_write: create / replace / upsert with full frontmatter and body. */
export async function planConceptWrite(
  ctx: PlanContext,
  input: ConceptWriteInput,
): Promise<WritePlan> {
  validateId(input.id, { forWrite: true });
  const maps = await ctx.maps();
  const fm = checkFrontmatter(input.frontmatter);
  validateConceptWrite(input.id, fm, maps);
  if (typeof input.body !== "string")
    throw new KbError("invalid_argument", "body must be a string");
  const existing = await resolveConcept(ctx.root, input.id, maps);
  refuseAmbiguous(input.id, existing);
  if (existing && input.mode === "create") {
    throw new KbError(
      "already_exists",
      `concept "${input.id}" already exists at ${existing.path}: use mode replace or upsert`,
    );
  }
  if (!existing && input.mode === "replace") throw notFound(input.id);
  checkIfMatch(
    `concept "${input.id}"`,
    existing ? contentHash(existing.text) : null,
    input.ifMatch, // given for a missing target: it was deleted since it was read
  );
  const path = existing?.path ?? candidatePaths(input.id)[0];
  if (!existing) await refuseWrongKinds(ctx.root, path); // a folder or file in the way: say so now
  const text = serializeDocument(fm, input.body, existing?.text);
  refuseTooLargeConcept(input.id, Buffer.byteLength(text));
  const hash = contentHash(text);
  return {
    changes: [{ path, content: text }],
    target: input.id,
    touchedIds: [input.id],
    result: { id: input.id, path, hash, created: !existing },
  };
}

/** concept_patch: ordered body edits and/or a shallow frontmatter merge (`null` removes). */
export async function planConceptPatch(
  ctx: PlanContext,
  input: ConceptPatchInput,
): Promise<WritePlan> {
  validateId(input.id);
  const hasEdits = Array.isArray(input.edits) && input.edits.length > 0;
  if (!hasEdits && !input.frontmatter) {
    throw new KbError("invalid_argument", "concept_patch needs edits and/or frontmatter");
  }
  const maps = await ctx.maps();
  const existing = await resolveConcept(ctx.root, input.id, maps);
  if (!existing) throw notFound(input.id);
  refuseAmbiguous(input.id, existing);
  checkIfMatch(`concept "${input.id}"`, contentHash(existing.text), input.ifMatch);
  const doc = parseDocument(existing.text);
  const body = hasEdits ? applyEdits(doc.body, input.edits ?? []) : doc.body;
  const fm: Frontmatter = { ...doc.frontmatter };
  for (const [key, value] of Object.entries(input.frontmatter ?? {})) {
    checkKey(key);
    if (value === null || value === undefined) {
      if (key === "type") {
        throw new KbError(
          "invalid_argument",
          "frontmatter.type cannot be removed: every concept needs a type",
        );
      }
      delete fm[key];
    } else {
      fm[key] = checkValue(key, value);
    }
  }
  validateConceptWrite(input.id, fm, maps);
  const text = serializeDocument(fm, body, existing.text);
  refuseTooLargeConcept(input.id, Buffer.byteLength(text));
  return {
    changes: [{ path: existing.path, content: text }],
    target: input.id,
    touchedIds: [input.id],
    result: { id: input.id, path: existing.path, hash: contentHash(text) },
  };
}

/** concept_expand: `<id>.md` becomes `<id>/index.md` (relative links recomputed). */
export async function planConceptExpand(
  ctx: PlanContext,
  input: { id: string },
): Promise<WritePlan> {
  validateId(input.id);
  const existing = await resolveConcept(ctx.root, input.id, await ctx.maps());
  if (!existing) throw notFound(input.id);
  refuseAmbiguous(input.id, existing);
  const [flat, expanded] = candidatePaths(input.id);
  if (existing.path === expanded) {
    throw new KbError("already_exists", `concept "${input.id}" is already expanded (${expanded})`);
  }
  validateId(`${input.id}/x`, { forWrite: true }); // satellites must still fit the depth limit
  await refuseWrongKinds(ctx.root, expanded);
  const text = rewriteLinks(existing.text, flat, new Map(), expanded);
  return {
    changes: [
      { path: flat, content: null },
      { path: expanded, content: text },
    ],
    target: input.id,
    touchedIds: [input.id],
    result: { id: input.id, path: expanded, hash: contentHash(text), expanded: true },
  };
}

/** concept_new: renders `templates/<name>.md` (exact variable set) and creates the concept. */
export async function planConceptNew(
  ctx: PlanContext,
  input: {
    id: string;
    template: string;
    variables: Record<string, string>;
    frontmatter?: Frontmatter;
  },
): Promise<WritePlan> {
  validateId(input.template.replace(/\.md$/, ""));
  const name = input.template.replace(/\.md$/, "");
  const source = await readTextOrNull(ctx.root, `templates/${name}.md`);
  if (source === null) {
    throw new KbError(
      "not_found",
      `template "${name}" does not exist (templates/${name}.md); see template_list`,
    );
  }
  const rendered = renderTemplate(name, source, input.variables ?? {});
  const doc = parseDocument(rendered);
  const frontmatter = { ...doc.frontmatter, ...(input.frontmatter ?? {}) };
  const plan = await planConceptWrite(ctx, {
    id: input.id,
    frontmatter,
    body: doc.body,
    mode: "create",
  });
  return { ...plan, result: { ...plan.result, template: name } };
}
