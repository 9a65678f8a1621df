/**
 * `/console/<kb>/audit`: the audit chain's status (data/audit-chain.ts: the offline verify of the
 * live log and its checkpoints) and the KB's recent calls as the viewer may see them
 * (data/audit-events.ts), attempts without completion highlighted, 50 a page. Says so when the
 * server keeps no audit log.
 */
import { chainStatus } from "../data/audit-chain.js";
import type { AuditTrailFiles } from "../data/audit-commits.js";
import { type AuditPage, mayView, auditPage as readCalls } from "../data/audit-events.js";
import { commitCalls } from "../data/audit-links.js";
import { type AuditCall, auditWindow } from "../data/audit-window.js";
import type { ViewScope } from "../data/commit-view.js";
import { govKb } from "../data/viewer-kb.js";
import { html } from "../html.js";
import { ConsoleError } from "../outcome.js";
import { layout } from "../page.js";
import { consoleUrl, withQuery } from "../paths.js";
import type { ConsolePage } from "../router.js";
import { callTable, chainSection } from "./audit-render.js";

const PAGE = 50;

export const auditPage: ConsolePage = {
  pattern: "/console/:kb/audit",
  methods: ["GET"],
  async handle(req, kbs) {
    const kb = req.params.kb as string;
    const { scope } = govKb(kbs, req.viewer, kb);
    const files = kbs.auditFiles();
    const title = "Audit";
    if (files === null) {
      const body = html`<h1>Audit</h1><p class="note" role="status">Audit is disabled on this server: no audit log is configured (<code>audit.log</code>), so there is no chain to verify and no call to list.</p>`;
      return {
        status: 200,
        html: layout({ title, viewer: req.viewer, kb, active: "audit", body }),
      };
    }
    const before = req.query.get("before") ?? "";
    if (before !== "" && !/^\d{1,12}$/.test(before))
      throw new ConsoleError("invalid_argument", "before must be a page cursor (a number)");
    const request = req.query.get("request")?.trim() || undefined;
    const commit = req.query.get("commit")?.trim() || undefined;
    if (commit !== undefined && !/^[0-9a-f]{40}$/.test(commit))
      throw new ConsoleError("invalid_argument", "commit must be a full commit sha (40 hex)");
    const onlyOpen = req.query.get("incomplete") === "1";
    const [status, window] = await Promise.all([chainStatus(files), auditWindow(files.log)]);
    const page: AuditPage =
      commit !== undefined
        ? { calls: await callOfCommit(files, kb, commit, scope), next: null }
        : await readCalls(window, scope, {
            kb,
            size: PAGE,
            ...(before !== "" ? { before: Number(before) } : {}),
            ...(request !== undefined ? { request: request.slice(0, 100) } : {}),
            incompleteOnly: onlyOpen,
          });
    const path = consoleUrl.audit(kb);
    const keep = { request, incomplete: onlyOpen ? "1" : undefined };
    const body = html`<h1>Audit</h1>
<h2>Chain</h2>
${chainSection(status, req.viewer.principal.policy.admin)}
<h2>${commit !== undefined ? html`The call that made commit <code>${commit.slice(0, 10)}</code>` : "Recent calls"}</h2>
<form class="filters" method="get" action="${path}">
<div><label for="a-request">Request id</label><input id="a-request" name="request" value="${request ?? ""}"></div>
<div class="check"><input id="a-open" type="checkbox" name="incomplete" value="1"${onlyOpen ? html` checked` : null}><label for="a-open">Only attempts without completion</label></div>
<button type="submit">Filter</button>
</form>
${callTable(kb, page.calls)}
<nav class="pager" aria-label="Pages">
${before !== "" || commit !== undefined ? html`<a rel="first" href="${withQuery(path, keep)}">← Newest</a>` : null}
${page.next === null ? null : html`<a rel="next" href="${withQuery(path, { ...keep, before: String(page.next) })}">Older →</a>`}
</nav>`;
    return { status: 200, html: layout({ title, viewer: req.viewer, kb, active: "audit", body }) };
  },
};

/**
 * The call whose completion recorded `sha` on `kb` — from the window or, for an older one, the
 * index of the whole trail (data/audit-links.ts) — when the viewer may see it; else nothing.
 */
async function callOfCommit(
  files: AuditTrailFiles,
  kb: string,
  sha: string,
  scope: ViewScope,
): Promise<AuditCall[]> {
  const call = (await commitCalls(files, kb, [sha])).get(sha);
  return call !== undefined && (await mayView(call, scope)) ? [call] : [];
}
