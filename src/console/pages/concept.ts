/**
 * `/console/<kb>/c/<id>`: a concept rendered from its Markdown (render/markdown.ts), its
 * frontmatter as a table, the concepts it links to that the viewer may see, and with `?links=1`
 * its backlinks and neighbours (concept-data.ts). Missing and hidden concepts answer the same 404.
 */
import { html, raw, type Safe } from "../html.js";
import { layout } from "../page.js";
import { consoleUrl, withQuery } from "../paths.js";
import { RENDERS } from "../render/cache.js";
import { prepareMarkdown } from "../render/markdown.js";
import { linkForViewer } from "../render/viewer-links.js";
import type { ConsolePage } from "../router.js";
import { type Neighbor, readConcept, readNeighbors } from "./concept-data.js";
import { frontmatterTable, NONE } from "./frontmatter.js";

export const conceptPage: ConsolePage = {
  pattern: "/console/:kb/c/*id",
  methods: ["GET"],
  async handle(req, kbs) {
    const kb = req.params.kb as string;
    const id = req.params.id as string;
    const concept = await readConcept(kbs, req.viewer, kb, id);
    const place = { kb, fromPath: concept.path };
    // One rendering for every viewer (render/cache.ts), linked for this one (viewer-links.ts).
    const shared = await RENDERS.obtain(concept.body, concept.hash, place);
    const visible = kbs.visibleIds(req.viewer, kb, shared.targets);
    const linked = linkForViewer(shared, visible);
    const body =
      linked !== null
        ? raw(linked)
        : prepareMarkdown(concept.body, place).render((t) => visible.has(t));
    const linksAsked = req.query.get("links") === "1";
    const neighbors = linksAsked ? await readNeighbors(kbs, req.viewer, kb, id) : null;
    const title = typeof concept.frontmatter.title === "string" ? concept.frontmatter.title : id;
    const page = html`<article class="concept">
<h1>${title}</h1>
<p class="meta">${concept.id} · ${concept.type}${concept.map ? html` · map <a href="${consoleUrl.browse(kb, concept.map)}">${concept.map}</a>` : null}${concept.journal ? html` · journal <a href="${consoleUrl.browse(kb, concept.journal)}">${concept.journal}</a>` : null} · <a href="${consoleUrl.history(kb, id)}">History</a></p>
${concept.note ? html`<p class="hint">${concept.note}</p>` : null}
<div class="layout-2">
<div class="concept-body">${body}</div>
<aside class="side" aria-label="About this concept">
<h2>Frontmatter</h2>
${frontmatterTable(concept.frontmatter)}
<h2>Links to</h2>
${linkList(
  kb,
  shared.targets.filter((t) => visible.has(t)).map((t) => ({ id: t, title: null })),
)}
${neighbors === null ? html`<p><a href="${withQuery(consoleUrl.concept(kb, id), { links: "1" })}">Show backlinks and neighbours</a> <small>(reads the whole KB)</small></p>` : neighborSections(kb, neighbors)}
</aside>
</div>
</article>`;
    return {
      status: 200,
      html: layout({ title, viewer: req.viewer, kb, active: "browse", body: page }),
    };
  },
};

function linkList(kb: string, items: readonly { id: string; title: string | null }[]): Safe {
  if (items.length === 0) return NONE;
  return html`<ul>${items.map((n) => html`<li><a href="${consoleUrl.concept(kb, n.id)}">${n.title ?? n.id}</a></li>`)}</ul>`;
}

function neighborSections(kb: string, n: { backlinks: Neighbor[]; outgoing: Neighbor[] }): Safe {
  return html`<h2>Backlinks</h2>
${linkList(kb, n.backlinks)}
<h2>Neighbours (linked from here)</h2>
${linkList(kb, n.outgoing)}`;
}
