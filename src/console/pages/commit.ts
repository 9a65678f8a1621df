/**
 * `/console/<kb>/commit/<sha>`: one commit's diff as the viewer may see it (data/commit-diff.ts).
 * A malformed, unknown, foreign or wholly hidden sha is the one 404 (hidden ≡ missing).
 */
import { commitDiff } from "../data/commit-diff.js";
import { govKb } from "../data/viewer-kb.js";
import { html } from "../html.js";
import { ConsoleError } from "../outcome.js";
import { layout } from "../page.js";
import type { ConsolePage } from "../router.js";
import { callsOf } from "./activity.js";
import { auditLine } from "./activity-render.js";
import { diffBlock } from "./commit-render.js";

const STATUS: Record<string, string> = {
  A: "added",
  M: "modified",
  D: "deleted",
  R: "renamed",
  C: "copied",
  T: "type changed",
};

export const commitPage: ConsolePage = {
  pattern: "/console/:kb/commit/:sha",
  methods: ["GET"],
  async handle(req, kbs) {
    const kb = req.params.kb as string;
    const { access, scope } = govKb(kbs, req.viewer, kb);
    const d = await commitDiff(access.root, scope, req.params.sha as string);
    if (d === null) throw new ConsoleError("not_found", "not found");
    const c = d.commit;
    const calls = await callsOf(kbs, kb, [c.sha]);
    const body = html`<h1>${c.subject}</h1>
<p class="meta"><code>${c.sha}</code> · <time datetime="${c.time}">${c.time}</time> · ${c.author}${c.merge ? " · merge (shown against its first parent)" : ""}</p>
<p>${auditLine(kb, c.sha, calls)}</p>
<h2>Files</h2>
${c.filesCut ? html`<p class="note">The commit touched more files than listed; only the first ${c.files.length} are shown.</p>` : null}
<ul class="files">${c.files.map((f) => html`<li><span class="status">${STATUS[f.status] ?? f.status}</span> <code>${f.paths.join(" → ")}</code></li>`)}</ul>
<h2>Diff</h2>
${d.truncated ? html`<p class="note">The diff is cut: it is longer than this page shows.</p>` : null}
${diffBlock(d.patch)}`;
    return {
      status: 200,
      html: layout({
        title: `Commit ${c.sha.slice(0, 10)}`,
        viewer: req.viewer,
        kb,
        active: "activity",
        body,
      }),
    };
  },
};
