/**
 * The conflicts page's parts: one section per conflict with the local and remote text side by
 * side (columns that stack on a narrow screen, stylesheet gov.css), the resolve form for a viewer
 * who may resolve, and the outcome of the last resolve (a fixed sentence per code: nothing from
 * the URL is shown but a validated id).
 */
import { CSRF_FIELD } from "../csrf.js";
import type { ConflictRow, ConflictSide } from "../data/conflict-sides.js";
import { html, type Safe } from "../html.js";
import { consoleUrl } from "../paths.js";

export interface ConflictView {
  row: ConflictRow;
  local: ConflictSide;
  remote: ConflictSide;
}

/** `/console/<kb>/conflicts/<id>/resolve`. */
export function resolveUrl(kb: string, id: string): string {
  return `${consoleUrl.conflicts(kb)}/${id.split("/").map(encodeURIComponent).join("/")}/resolve`;
}

const OUTCOMES: Record<string, string> = {
  not_found: "no such conflict is registered (it may have been resolved already).",
  invalid_argument: "the resolution was refused: check the strategy and, for edit, the file text.",
  invalid_frontmatter: "the edited text is not a valid concept file.",
  conflict: "the merge met a new conflict; it is listed below.",
  forbidden: "this token may not resolve it.",
  busy: "the KB is busy; try again shortly.",
};

/** The banner after a resolve (from the redirect's query). */
export function outcomeBanner(
  resolved: string | null,
  failed: string | null,
  code: string | null,
): Safe {
  if (resolved !== null)
    return html`<p class="banner ok" role="status">Resolved the conflict on <code>${resolved}</code>.</p>`;
  if (failed === null) return html``;
  const why =
    OUTCOMES[code ?? ""] ?? `the call failed (${code ?? "error"}); the audit page has the record.`;
  return html`<p class="banner broken" role="alert">Could not resolve <code>${failed}</code>: ${why}</p>`;
}

export function conflictSection(kb: string, v: ConflictView, csrf: string | null): Safe {
  const { row } = v;
  const hid = `conflict-${row.concept_id.replace(/[^a-z0-9-]/g, "-")}`;
  return html`<section class="conflict" aria-labelledby="${hid}">
<h2 id="${hid}"><a href="${consoleUrl.concept(kb, row.concept_id)}">${row.concept_id}</a>${row.resolved ? html` <span class="tag">resolved, merge pending</span>` : null}</h2>
<p class="meta">Detected <time datetime="${row.detected_at}">${row.detected_at}</time> · <code>${row.path}</code></p>
<div class="sides">
${side("Local (this server)", row.local_sha, v.local)}
${side("Remote", row.remote_sha, v.remote)}
</div>
${csrf !== null && !row.resolved ? resolveForm(kb, row, v.local, csrf) : null}
</section>`;
}

function side(label: string, sha: string, s: ConflictSide): Safe {
  return html`<div class="side">
<h3>${label} <code>${sha.slice(0, 10)}</code></h3>
${s.text === null ? html`<p class="empty">The file does not exist on this side.</p>` : html`<pre><code>${s.text}</code></pre>`}
${s.truncated ? html`<p class="note">Cut: the file is longer than shown.</p>` : null}
</div>`;
}

function resolveForm(kb: string, row: ConflictRow, local: ConflictSide, csrf: string): Safe {
  const base = `r-${row.concept_id.replace(/[^a-z0-9-]/g, "-")}`;
  return html`<form class="resolve" method="post" action="${resolveUrl(kb, row.concept_id)}">
<input type="hidden" name="${CSRF_FIELD}" value="${csrf}">
<fieldset>
<legend>Resolve ${row.concept_id}</legend>
<div class="check"><input type="radio" id="${base}-ours" name="strategy" value="ours" checked><label for="${base}-ours">Keep local (ours)</label></div>
<div class="check"><input type="radio" id="${base}-theirs" name="strategy" value="theirs"><label for="${base}-theirs">Take remote (theirs)</label></div>
<div class="check"><input type="radio" id="${base}-edit" name="strategy" value="edit"><label for="${base}-edit">Use the text below (edit)</label></div>
<label for="${base}-body">Whole file, for edit</label>
<textarea id="${base}-body" name="body" rows="10">${local.truncated ? "" : (local.text ?? "")}</textarea>
<button type="submit">Resolve</button>
</fieldset>
</form>`;
}
