/**
 * Tags (docs/import.md "Frontmatter"): Obsidian's inline `#tag` (letters, digits, `_`, `-`, `/`
 * for nesting, not only digits; never in code, a heading marker or a URL fragment) and the
 * frontmatter's `tags` (a list, or one string split on commas and spaces). Pure.
 */
import type { FmValue } from "../core/types.js";
import { mapProseLines } from "./prose-lines.js";

const INLINE = /(?:^|[\s(,;])#([\p{L}\p{N}_/-]+)/gu;

/** Inline tags in order of first appearance, without `#`. */
export function inlineTags(body: string): string[] {
  const found: string[] = [];
  mapProseLines(body, (_line, masked) => {
    for (const m of masked.matchAll(INLINE)) {
      const tag = (m[1] as string).replace(/\/+$/, "");
      if (tag && !/^[\p{N}_/-]+$/u.test(tag)) found.push(tag);
    }
    return undefined;
  });
  return [...new Set(found)];
}

/** A frontmatter `tags` value as a list of tags without `#`. */
export function frontmatterTags(value: FmValue | undefined): string[] {
  if (value === undefined || value === null) return [];
  const items = Array.isArray(value) ? value : String(value).split(/[,\s]+/);
  return items
    .filter((t) => t !== null)
    .map((t) => String(t).trim().replace(/^#/, ""))
    .filter((t) => t !== "");
}
