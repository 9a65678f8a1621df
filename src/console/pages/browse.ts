/**
 * `/console/<kb>/browse[?map=&from=]`: the maps and journals the viewer may see, and concepts
 * 50 a page in id order (`concept_list` with keyset paging: `from` is the first id of the page;
 * one item more than the page says where the next starts).
 */
import { html, type Safe } from "../html.js";
import { ConsoleError } from "../outcome.js";
import { layout } from "../page.js";
import { consoleUrl } from "../paths.js";
import type { ConsolePage } from "../router.js";

export const BROWSE_PAGE = 50;

interface MapInfo {
  name: string;
  kind: string;
  title: string | null;
}

interface ListItem {
  id: string;
  title: string | null;
  type: string;
}

export const browsePage: ConsolePage = {
  pattern: "/console/:kb/browse",
  methods: ["GET"],
  async handle(req, kbs) {
    const kb = req.params.kb as string;
    const { viewer } = req;
    if (!kbs.canRead(viewer, kb)) throw new ConsoleError("not_found", "not found");
    const map = req.query.get("map") ?? undefined;
    const from = req.query.get("from") ?? undefined;
    const [maps, list] = await Promise.all([
      kbs.read<{ maps: MapInfo[] }>(viewer, kb, "map_list"),
      kbs.read<{ items: ListItem[]; total: number }>(viewer, kb, "concept_list", {
        ...(map ? { map } : {}),
        ...(from ? { from } : {}),
        limit: BROWSE_PAGE + 1,
      }),
    ]);
    const items = list.items.slice(0, BROWSE_PAGE);
    const next = list.items[BROWSE_PAGE]?.id;
    const current = map ? maps.maps.find((m) => m.name === map) : undefined;
    // A map the viewer cannot see lists nothing and is named by nobody: the same 404 as a typo.
    if (map && current === undefined) throw new ConsoleError("not_found", "not found");
    const heading = current ? (current.title ?? current.name) : "All concepts";
    const body = html`<h1>Browse</h1>
<nav aria-label="Maps and journals">
<h2>Maps and journals</h2>
<ul class="maps">
<li><a href="${consoleUrl.browse(kb)}"${map ? null : html` aria-current="page"`}>All concepts</a></li>
${maps.maps.map((m) => html`<li><a href="${consoleUrl.browse(kb, m.name)}"${m.name === map ? html` aria-current="page"` : null}>${m.title ?? m.name}</a> <span class="kind">${m.kind}</span></li>`)}
</ul>
</nav>
<section aria-labelledby="listing">
<h2 id="listing">${heading}</h2>
${from ? null : html`<p class="meta">${list.total} concepts</p>`}
${listing(kb, items)}
${pager(kb, map, from, next)}
</section>`;
    return {
      status: 200,
      html: layout({ title: "Browse", viewer, kb, active: "browse", body }),
    };
  },
};

function listing(kb: string, items: readonly ListItem[]): Safe {
  if (items.length === 0) return html`<p>No concepts here.</p>`;
  return html`<ul class="listing">${items.map((i) => html`<li><a href="${consoleUrl.concept(kb, i.id)}">${i.title ?? i.id}</a> <span class="meta">${i.id} · ${i.type}</span></li>`)}</ul>`;
}

function pager(
  kb: string,
  map: string | undefined,
  from: string | undefined,
  next: string | undefined,
): Safe | null {
  if (!from && next === undefined) return null;
  return html`<nav class="pager" aria-label="Pages">
${from ? html`<a href="${consoleUrl.browse(kb, map)}">First page</a>` : null}
${next !== undefined ? html`<a href="${consoleUrl.browse(kb, map, next)}" rel="next">Next page</a>` : null}
</nav>`;
}
