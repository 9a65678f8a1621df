/**
 * The audit page's parts: the chain verdict (details only for a server admin: the log spans
 * every KB, so its counts and line numbers say how much happened in KBs the viewer may not
 * see) and the table of calls, attempts without completion marked.
 */
import path from "node:path";
import type { ChainStatus } from "../data/audit-chain.js";
import { incomplete } from "../data/audit-events.js";
import type { AuditCall } from "../data/audit-window.js";
import { html, type Safe } from "../html.js";
import { consoleUrl } from "../paths.js";

/** The chain section. `details`: counts and breaks (a server admin). */
export function chainSection(s: ChainStatus, details: boolean): Safe {
  const r = s.report;
  const verdict =
    r === null
      ? s.error !== null
        ? html`<p class="chain broken" role="status"><strong>Not verified:</strong> ${s.error}</p>`
        : html`<p class="chain" role="status">Verification is running; reload in a moment.</p>`
      : r.ok
        ? html`<p class="chain ok" role="status"><strong>Chain verified</strong> (live log and checkpoints)${r.signaturesChecked ? ", signatures checked" : ""}.</p>`
        : html`<p class="chain broken" role="status"><strong>Chain broken:</strong> ${r.breaks.length + r.breaksLeftOff} problem(s) found. Run <code>cartographer audit verify</code> on the server.</p>`;
  const when = s.checkedAt
    ? html`<p class="meta">Checked at <time datetime="${s.checkedAt.toISOString()}">${s.checkedAt.toISOString()}</time>${s.checking ? " · a newer check is running" : ""}.</p>`
    : null;
  if (!details || r === null) return html`${verdict}${when}`;
  return html`${verdict}${when}
<dl class="counts">
<dt>Valid entries</dt><dd>${r.valid}</dd>
<dt>Attempts / completions</dt><dd>${r.attempts} / ${r.completions}</dd>
<dt>Attempts without completion</dt><dd>${r.incomplete}</dd>
<dt>Archived segments (kept / checkpoint only)</dt><dd>${r.segmentsRetained} / ${r.segmentsCheckpointOnly}</dd>
<dt>Head</dt><dd><code>${r.head ?? "none"}</code></dd>
</dl>
${
  r.breaks.length === 0
    ? null
    : html`<h3>Problems</h3><ul class="breaks">${r.breaks
        .slice(0, 20)
        .map(
          (b) =>
            html`<li><code>${path.basename(b.file)}:${b.line}</code> ${b.reason}${b.detail ? `: ${b.detail}` : ""}</li>`,
        )}</ul>`
}`;
}

/** The calls, newest first. */
export function callTable(kb: string, calls: readonly AuditCall[]): Safe {
  if (calls.length === 0) return html`<p class="empty">No call to show.</p>`;
  return html`<div class="table-wrap"><table class="calls">
<caption class="visually-hidden">Recent calls, newest first</caption>
<thead><tr><th scope="col">Time</th><th scope="col">Principal</th><th scope="col">Tool</th><th scope="col">Targets</th><th scope="col">Transport</th><th scope="col">Outcome</th><th scope="col">Commit</th></tr></thead>
<tbody>${calls.map((c) => callRow(kb, c))}</tbody>
</table></div>`;
}

function callRow(kb: string, c: AuditCall): Safe {
  const open = incomplete(c);
  const targets = Object.entries(c.resources)
    .map(([k, v]) => `${k}=${Array.isArray(v) ? v.join(",") : String(v)}`)
    .join(" ");
  return html`<tr class="${open ? "incomplete" : ""}" id="${`call-${c.request_id}`}">
<td><time datetime="${c.timestamp}">${c.timestamp}</time></td>
<td>${c.principal_id}</td>
<td>${c.tool}${c.read_only ? "" : html` <span class="tag">write</span>`}</td>
<td><code>${targets}</code></td>
<td>${c.transport}</td>
<td>${open ? html`<strong class="tag warn">no completion</strong>` : (c.outcome ?? "")}${c.duration_ms !== undefined ? html` <span class="meta">${Math.round(c.duration_ms)} ms</span>` : null}</td>
<td>${c.commit_sha ? html`<a href="${consoleUrl.commit(kb, c.commit_sha)}"><code>${c.commit_sha.slice(0, 10)}</code></a>` : null}</td>
</tr>`;
}
