/**
 * Frontmatter of an imported note (Go's rule: keep what is there, add only what is missing):
 * `title` from the first H1, else the file name; `type: Note`; `status: imported`, which the
 * `imported_draft` lint lists for curation; `tags` gains the inline `#tags` the note carries.
 * Pure.
 */
import { outline } from "../core/markdown.js";
import type { Frontmatter } from "../core/types.js";
import { frontmatterTags, inlineTags } from "./tags.js";

export const IMPORTED_TYPE = "Note";
export const IMPORTED_STATUS = "imported";

export function completeFrontmatter(fm: Frontmatter, body: string, fileStem: string): Frontmatter {
  const out: Frontmatter = { ...fm };
  if (!("title" in out)) {
    out.title = outline(body).find((h) => h.level === 1 && h.text !== "")?.text ?? fileStem;
  }
  if (!("type" in out)) out.type = IMPORTED_TYPE;
  if (!("status" in out)) out.status = IMPORTED_STATUS;
  const had = frontmatterTags(out.tags);
  const extra = inlineTags(body).filter((t) => !had.includes(t));
  // An existing value is rewritten only when the body adds tags to it.
  if (extra.length > 0) out.tags = [...had, ...extra];
  return out;
}
