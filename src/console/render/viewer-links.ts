/**
 * One viewer's links in a shared rendering (markdown.ts `renderShared`; docs/decisions.md
 * "Console: the first render of a large concept"): one linear scan over the sanitized HTML, no
 * parse and no second sanitize. A marked anchor whose concept the viewer sees loses its marker
 * and stays the link the page always showed; one it does not see (or that does not exist)
 * becomes `<span class="missing-link">…</span>`, byte for byte what the per-viewer rendering
 * gives (hidden ≡ missing).
 *
 * Why the scan cannot be fooled: the HTML is sanitize-html's output, where every `<` of text and
 * every `<`, `>` and `"` of an attribute value is escaped, so each `<a…>` and `</a>` it finds is
 * a real tag; and only the renderer writes a class on an anchor (raw HTML is off). The marked
 * anchors must also number exactly the ids the renderer recorded, in order — otherwise
 * `linkForViewer` returns null and the caller renders for the viewer the old way.
 */
import { CONCEPT_LINK, MISSING_LINK_OPEN, type SharedRender } from "./markdown.js";

const WIKI_OPEN = `<a class="${CONCEPT_LINK} wikilink" `;
const LINK_OPEN = `<a class="${CONCEPT_LINK}" `;
/** Every anchor tag: `<a` then a space or `>` (no other allowed tag starts with `<a`), or `</a>`. */
const ANCHOR_TAG = /<a[ >][^>]*>|<\/a>/g;

/** `shared` as the viewer sees it, or null when its marked anchors do not match its ids. */
export function linkForViewer(shared: SharedRender, visible: ReadonlySet<string>): string | null {
  const src = shared.html;
  const parts: string[] = [];
  /** For each open anchor, innermost last: true when it became a missing-link span. */
  const open: boolean[] = [];
  let k = 0;
  let last = 0;
  for (const m of src.matchAll(ANCHOR_TAG)) {
    const tag = m[0];
    const at = m.index;
    if (tag === "</a>") {
      if (open.length === 0) return null;
      if (open.pop() === true) {
        parts.push(src.slice(last, at), "</span>");
        last = at + tag.length;
      }
      continue;
    }
    const wiki = tag.startsWith(WIKI_OPEN);
    if (!wiki && !tag.startsWith(LINK_OPEN)) {
      open.push(false);
      continue;
    }
    const id = shared.anchors[k++];
    if (id === undefined) return null;
    parts.push(src.slice(last, at));
    last = at + tag.length;
    if (visible.has(id)) {
      parts.push(
        wiki
          ? `<a class="wikilink" ${tag.slice(WIKI_OPEN.length)}`
          : `<a ${tag.slice(LINK_OPEN.length)}`,
      );
      open.push(false);
    } else {
      parts.push(MISSING_LINK_OPEN);
      open.push(true);
    }
  }
  if (k !== shared.anchors.length || open.length !== 0) return null;
  parts.push(src.slice(last));
  return parts.join("");
}
