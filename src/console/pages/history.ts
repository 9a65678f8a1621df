/**
 * `/console/<kb>/c/<id>/history`: the commits of one concept (data/commit-diff.ts
 * conceptHistory), each linking to its diff. A hidden, unknown or malformed id is the one 404.
 */
import { conceptHistory } from "../data/commit-diff.js";
import { govKb } from "../data/viewer-kb.js";
import { html } from "../html.js";
import { ConsoleError } from "../outcome.js";
import { layout } from "../page.js";
import { consoleUrl } from "../paths.js";
import type { ConsolePage } from "../router.js";
import { nextBack, previous, windowOf } from "./activity.js";
import { activityQuery } from "./activity-query.js";
import { commitList, pager } from "./activity-render.js";

export const historyPage: ConsolePage = {
  pattern: "/console/:kb/c/*id/history",
  methods: ["GET"],
  async handle(req, kbs) {
    const kb = req.params.kb as string;
    const id = req.params.id as string;
    const { access, scope } = govKb(kbs, req.viewer, kb);
    const q = activityQuery(req.query);
    const page = await conceptHistory(access.root, scope, id, q.at);
    if (page === null) throw new ConsoleError("not_found", "not found");
    const window = await windowOf(kbs);
    const path = consoleUrl.history(kb, id);
    const body = html`<h1>History of <a href="${consoleUrl.concept(kb, id)}">${id}</a></h1>
${commitList(kb, page.commits, (sha) => window?.callOfCommit(sha))}
${pager(path, {}, previous(q), page.next === null ? null : { at: page.next, back: nextBack(q) })}`;
    return {
      status: 200,
      html: layout({ title: `History of ${id}`, viewer: req.viewer, kb, active: "browse", body }),
    };
  },
};
