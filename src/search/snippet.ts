/** Builds the ~200-character excerpt shown with a search hit. Pure. */
export const SNIPPET_LENGTH = 200;
/** How much context precedes the first match. */
const LEAD = 60;

/**
 * About `length` characters of `body` around the first occurrence (case-insensitive) of any
 * term, whitespace collapsed, cut at word boundaries, with `…` where text was cut. Without a
 * match in the body (the hit was on the title or id) the opening of the body is returned.
 */
export function makeSnippet(body: string, terms: string[], length = SNIPPET_LENGTH): string {
  const text = body.replace(/\s+/g, " ").trim();
  if (text.length <= length) return text;
  const lower = text.toLowerCase();
  let first = -1;
  for (const term of terms) {
    const at = lower.indexOf(term);
    if (at >= 0 && (first < 0 || at < first)) first = at;
  }
  let start = first <= LEAD ? 0 : first - LEAD;
  if (start > 0) {
    const space = text.indexOf(" ", start);
    if (space >= 0 && space < (first < 0 ? start + 20 : first)) start = space + 1;
  }
  let end = Math.min(text.length, start + length);
  if (end < text.length) {
    const space = text.lastIndexOf(" ", end);
    if (space > start + length / 2) end = space;
  }
  return `${start > 0 ? "…" : ""}${text.slice(start, end)}${end < text.length ? "…" : ""}`;
}
