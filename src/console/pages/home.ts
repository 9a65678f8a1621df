/**
 * `/`: the KBs the viewer may read, each with its figures (kb-summary.ts). A viewer that may read
 * no KB is told so, nothing more.
 */
import { html } from "../html.js";
import { layout } from "../page.js";
import type { ConsolePage } from "../router.js";
import { kbSummaries, summaryCard } from "./kb-summary.js";

export const homePage: ConsolePage = {
  pattern: "/",
  methods: ["GET"],
  async handle(req, kbs) {
    const names = kbs.visible(req.viewer);
    const summaries = await kbSummaries(kbs, req.viewer, names);
    const body =
      names.length === 0
        ? html`<h1>Knowledge bases</h1><p>No KB to show: this server mounts none that you may read.
An operator adds one with <code>cartographer kb create NAME --data DIR</code> and restarts the server,
or grants this token a KB.</p>`
        : html`<h1>Knowledge bases</h1>
<ul class="cards">${summaries.map((s) => html`<li>${summaryCard(s)}</li>`)}</ul>`;
    return {
      status: 200,
      html: layout({ title: "Home", viewer: req.viewer, active: "home", body }),
    };
  },
};
