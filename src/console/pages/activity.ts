/**
 * `/console/<kb>/activity`: the change feed (data/feed.ts) as the viewer may see it, filterable
 * by map, tool, principal and time, 50 commits a page; each commit links to its diff and to its
 * audit record (principal, tool, transport, outcome).
 */
import { type CommitCalls, commitCalls } from "../data/audit-links.js";
import { readFeed } from "../data/feed.js";
import { govKb } from "../data/viewer-kb.js";
import { html, type Safe } from "../html.js";
import type { ConsoleKbs } from "../kbs.js";
import { layout } from "../page.js";
import { consoleUrl } from "../paths.js";
import type { ConsolePage } from "../router.js";
import { type ActivityQuery, activityQuery, filterParams, MAX_BACK } from "./activity-query.js";
import { commitList, pager } from "./activity-render.js";

export const activityPage: ConsolePage = {
  pattern: "/console/:kb/activity",
  methods: ["GET"],
  async handle(req, kbs) {
    const kb = req.params.kb as string;
    const { access, scope } = govKb(kbs, req.viewer, kb);
    const q = activityQuery(req.query);
    const page = await readFeed(access.root, scope, {
      filter: q.filter,
      cursor: q.at,
      principalsOf: async (shas) => {
        const calls = await callsOf(kbs, kb, shas);
        return new Map(shas.flatMap((sha) => principalOf(calls, sha)));
      },
    });
    const calls = await callsOf(
      kbs,
      kb,
      page.commits.map((c) => c.sha),
    );
    const path = consoleUrl.activity(kb);
    const body = html`<h1>Activity</h1>
${filterForm(path, q, kbs.auditFiles() !== null)}
${page.partial ? html`<p class="note">This page stopped after reading ${page.scanned} commits; older ones continue on the next page.</p>` : null}
${commitList(kb, page.commits, calls)}
${pager(path, filterParams(q.filter), previous(q), page.next === null ? null : { at: page.next, back: nextBack(q) })}`;
    return {
      status: 200,
      html: layout({ title: "Activity", viewer: req.viewer, kb, active: "activity", body }),
    };
  },
};

/** The calls that made `shas` on `kb` (none when the server keeps no audit log). */
export function callsOf(
  kbs: ConsoleKbs,
  kb: string,
  shas: readonly string[],
): Promise<CommitCalls> {
  return commitCalls(kbs.auditFiles(), kb, shas);
}

function principalOf(calls: CommitCalls, sha: string): Array<[string, string]> {
  const call = calls.get(sha);
  return call ? [[sha, call.principal_id]] : [];
}

/** The back stack of the next page: this page's cursor pushed (the first page's 0 is implied). */
export function nextBack(q: Pick<ActivityQuery, "at" | "back">): number[] {
  return q.at === 0 ? [] : [...q.back, q.at].slice(-MAX_BACK);
}

/** The previous page's cursor, when this is not the first page. */
export function previous(
  q: Pick<ActivityQuery, "at" | "back">,
): { at: number; back: number[] } | null {
  if (q.at === 0) return null;
  const back = [...q.back];
  return { at: back.pop() ?? 0, back };
}

function filterForm(path: string, q: ActivityQuery, audited: boolean): Safe {
  const f = q.filter;
  const day = (d: Date | undefined) => d?.toISOString() ?? "";
  return html`<form class="filters" method="get" action="${path}">
<div><label for="f-map">Map</label><input id="f-map" name="map" value="${f.map ?? ""}"></div>
<div><label for="f-tool">Tool</label><input id="f-tool" name="tool" value="${f.tool ?? ""}" placeholder="concept_write"></div>
${audited ? html`<div><label for="f-principal">Principal</label><input id="f-principal" name="principal" value="${f.principal ?? ""}"></div>` : null}
<div><label for="f-since">Since</label><input id="f-since" name="since" value="${day(f.since)}" placeholder="2026-05-01"></div>
<div><label for="f-until">Until</label><input id="f-until" name="until" value="${day(f.until)}" placeholder="2026-05-31"></div>
<button type="submit">Filter</button>
</form>`;
}
