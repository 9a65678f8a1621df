/** Ordered `old_string` → `new_string` edits of a text, all or nothing. Pure. */

import { KbError } from "../../common/errors.js";
import type { BodyEdit } from "./api.js";

function count(haystack: string, needle: string): number {
  let n = 0;
  for (
    let at = haystack.indexOf(needle);
    at >= 0;
    at = haystack.indexOf(needle, at + needle.length)
  )
    n++;
  return n;
}

function preview(s: string): string {
  const one = s.replace(/\n/g, "\\n");
  return one.length > 60 ? `${one.slice(0, 57)}...` : one;
}

/**
 * Applies `edits` in order to `text`. Throws `old_string_not_found` / `old_string_ambiguous`
 * naming the failing edit (1-based) when there is more than one edit; nothing is applied then.
 */
export function applyEdits(text: string, edits: BodyEdit[]): string {
  let out = text;
  edits.forEach((edit, i) => {
    const label = edits.length > 1 ? `edit ${i + 1}: ` : "";
    if (typeof edit.old_string !== "string" || edit.old_string === "") {
      throw new KbError("invalid_argument", `${label}old_string must be a non-empty string`);
    }
    if (typeof edit.new_string !== "string") {
      throw new KbError("invalid_argument", `${label}new_string must be a string`);
    }
    const n = count(out, edit.old_string);
    if (n === 0) {
      throw new KbError(
        "old_string_not_found",
        `${label}"${preview(edit.old_string)}" does not occur in the current text: re-read it and copy the exact text`,
        { edit: i + 1 },
      );
    }
    if (n > 1 && !edit.replace_all) {
      throw new KbError(
        "old_string_ambiguous",
        `${label}"${preview(edit.old_string)}" occurs ${n} times: add surrounding text to make it unique, or set replace_all`,
        { edit: i + 1, occurrences: n },
      );
    }
    out = edit.replace_all
      ? out.split(edit.old_string).join(edit.new_string)
      : out.replace(edit.old_string, () => edit.new_string);
  });
  return out;
}
