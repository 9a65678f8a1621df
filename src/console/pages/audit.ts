/**
 * `/console/<kb>/audit`: the audit chain's status (data/audit-chain.ts: the offline verify of the
 * live log and its checkpoints) and the KB's recent calls as the viewer may see them
 * (data/audit-events.ts), attempts without completion highlighted, 50 a page. Says so when the
 * server keeps no audit log.
 */
import { chainStatus } from "../data/audit-chain.js";
import { auditPage as readCalls } from "../data/audit-events.js";
import { auditWindow } from "../data/audit-window.js";
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
    const onlyOpen = req.query.get("incomplete") === "1";
    const [status, window] = await Promise.all([chainStatus(files), auditWindow(files.log)]);
    const page = await readCalls(window, scope, {
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
<h2>Recent calls</h2>
<form class="filters" method="get" action="${path}">
<div><label for="a-request">Request id</label><input id="a-request" name="request" value="${request ?? ""}"></div>
<div class="check"><input id="a-open" type="checkbox" name="incomplete" value="1"${onlyOpen ? html` checked` : null}><label for="a-open">Only attempts without completion</label></div>
<button type="submit">Filter</button>
</form>
${callTable(kb, page.calls)}
<nav class="pager" aria-label="Pages">
${before !== "" ? html`<a rel="first" href="${withQuery(path, keep)}">← Newest</a>` : null}
${page.next === null ? null : html`<a rel="next" href="${withQuery(path, { ...keep, before: String(page.next) })}">Older →</a>`}
</nav>`;
    return { status: 200, html: layout({ title, viewer: req.viewer, kb, active: "audit", body }) };
  },
};
