/**
 * A patch as escaped preformatted text, one span per line classed by what the line is (added,
 * removed, hunk header, file header), so the stylesheet can colour it; pure.
 */
import { html, type Safe } from "../html.js";

export type DiffLineKind = "add" | "del" | "hunk" | "file" | "ctx";

/** The kind of one patch line. */
export function diffLineKind(line: string): DiffLineKind {
  if (line.startsWith("+++ ") || line.startsWith("--- ")) return "file";
  if (line.startsWith("+")) return "add";
  if (line.startsWith("-")) return "del";
  if (line.startsWith("@@")) return "hunk";
  if (
    /^(diff --git|index |new file|deleted file|similarity|rename |old mode|new mode|Binary files)/.test(
      line,
    )
  )
    return "file";
  return "ctx";
}

/** The patch rendered; every line escaped. */
export function diffBlock(patch: string): Safe {
  if (patch === "") return html`<p class="empty">No change to show.</p>`;
  const lines = patch.endsWith("\n") ? patch.slice(0, -1).split("\n") : patch.split("\n");
  // One block span per line (gov.css): no newline between them, or every line would be doubled.
  return html`<pre class="diff"><code>${lines.map(
    (l) => html`<span class="${`d-${diffLineKind(l)}`}">${l === "" ? " " : l}</span>`,
  )}</code></pre>`;
}
