/** `/console/<kb>`: one KB's figures and its maps and journals (links into Browse). */
import { html } from "../html.js";
import { ConsoleError } from "../outcome.js";
import { layout } from "../page.js";
import { consoleUrl } from "../paths.js";
import type { ConsolePage } from "../router.js";
import { kbSummary, summaryCard } from "./kb-summary.js";

export const kbPage: ConsolePage = {
  pattern: "/console/:kb",
  methods: ["GET"],
  async handle(req, kbs) {
    const kb = req.params.kb as string;
    if (!kbs.canRead(req.viewer, kb)) throw new ConsoleError("not_found", "not found");
    const s = await kbSummary(kbs, req.viewer, kb);
    const body = html`<h1>${kb}</h1>
${summaryCard(s)}
<h2>Maps and journals</h2>
${
  s.maps.length === 0
    ? html`<p>No map or journal is visible to this token.</p>`
    : html`<ul class="maps">${s.maps.map(
        (m) =>
          html`<li><a href="${consoleUrl.browse(kb, m.name)}">${m.title ?? m.name}</a> <span class="kind">${m.kind}</span> <span class="count">${m.concepts} concepts</span></li>`,
      )}</ul>`
}`;
    return { status: 200, html: layout({ title: "Overview", viewer: req.viewer, kb, body }) };
  },
};
