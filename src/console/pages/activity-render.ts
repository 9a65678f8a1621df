/**
 * Rendering shared by the activity and history pages: one list item per commit (link to its diff,
 * its audit record when the audit window holds it) and the next/previous links.
 */
import type { CommitCalls } from "../data/audit-links.js";
import type { AuditCall } from "../data/audit-window.js";
import type { ViewedCommit } from "../data/commit-view.js";
import { html, type Safe } from "../html.js";
import { consoleUrl, withQuery } from "../paths.js";

/** The commits of one page, newest first; `note` adds a line to an entry (a history's names). */
export function commitList<C extends ViewedCommit>(
  kb: string,
  commits: readonly C[],
  calls: CommitCalls,
  note: (c: C) => Safe | null = () => null,
): Safe {
  if (commits.length === 0) return html`<p class="empty">No commit on this page matches.</p>`;
  return html`<ol class="feed">${commits.map((c) => commitItem(kb, c, calls, note(c)))}</ol>`;
}

function commitItem(kb: string, c: ViewedCommit, calls: CommitCalls, note: Safe | null): Safe {
  const files = c.filesCut
    ? `${c.files.length}+ files`
    : c.files.length === 1
      ? "1 file"
      : `${c.files.length} files`;
  return html`<li class="commit">
<a class="subject" href="${consoleUrl.commit(kb, c.sha)}">${c.subject}</a>
<span class="meta"><time datetime="${c.time}">${c.time}</time> · <code>${c.sha.slice(0, 10)}</code> · ${files}${c.merge ? " · merge" : ""}</span>
${note}
${auditLine(kb, c.sha, calls)}
</li>`;
}

/**
 * principal · tool · transport · outcome of the call that made `sha`, linking to its audit record
 * (by commit: the audit page finds it in the window or the index of older records).
 */
export function auditLine(kb: string, sha: string, calls: CommitCalls): Safe {
  const call: AuditCall | undefined = calls.get(sha);
  if (!call)
    return calls.indexing
      ? html`<span class="audit none">no audit record found yet: older records are still being indexed</span>`
      : html`<span class="audit none">no audit record</span>`;
  return html`<span class="audit">by <strong>${call.principal_id}</strong> via ${call.tool} (${call.transport}), ${call.outcome ?? "no completion"} · <a href="${withQuery(consoleUrl.audit(kb), { commit: sha })}">audit record</a></span>`;
}

/** A page's cursor and the cursors of the pages before it (the activity's numbers, a history's text). */
export interface PagerLink {
  at: number | string;
  back: ReadonlyArray<number | string>;
}

/** Newer/older links: `prev`/`next` are the cursor query of those pages, or null. */
export function pager(
  path: string,
  params: Record<string, string | undefined>,
  prev: PagerLink | null,
  next: PagerLink | null,
): Safe {
  const link = (p: PagerLink) =>
    withQuery(path, {
      ...params,
      at: String(p.at) === "0" ? undefined : String(p.at),
      back: p.back.length > 0 ? p.back.join(".") : undefined,
    });
  if (prev === null && next === null) return html``;
  return html`<nav class="pager" aria-label="Pages">
${prev === null ? null : html`<a rel="prev" href="${link(prev)}">← Newer</a>`}
${next === null ? null : html`<a rel="next" href="${link(next)}">Older →</a>`}
</nav>`;
}
