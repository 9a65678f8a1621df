/**
 * `/console/<kb>/search?q=`: the `search` tool's own ranking, as the viewer (keyword; hybrid when
 * the server has embeddings configured), the best 50.
 */
import { html } from "../html.js";
import { ConsoleError } from "../outcome.js";
import { layout } from "../page.js";
import { consoleUrl } from "../paths.js";
import type { ConsolePage } from "../router.js";

export const SEARCH_LIMIT = 50;

interface Hit {
  id: string;
  title: string | null;
  type: string;
  snippet: string;
}

export const searchPage: ConsolePage = {
  pattern: "/console/:kb/search",
  methods: ["GET"],
  async handle(req, kbs) {
    const kb = req.params.kb as string;
    const { viewer } = req;
    const access = kbs.runtime(viewer, kb);
    if (access === null) throw new ConsoleError("not_found", "not found");
    const q = (req.query.get("q") ?? "").trim();
    const hybrid = access.runtime.embeddings !== undefined;
    const result =
      q === ""
        ? null
        : await kbs.read<{ results: Hit[] }>(viewer, kb, "search", {
            query: q,
            limit: SEARCH_LIMIT,
            ...(hybrid ? { mode: "hybrid" } : {}),
          });
    const body = html`<h1>Search</h1>
<form class="search" role="search" method="get" action="${consoleUrl.search(kb)}">
<label for="q">Search ${kb}</label>
<input id="q" name="q" type="search" value="${q}">
<button type="submit">Search</button>
<p class="hint">${hybrid ? "Hybrid ranking (words and meaning)" : "Keyword ranking"}, as the search tool.</p>
</form>
${
  result === null
    ? null
    : html`<section aria-labelledby="results">
<h2 id="results">${result.results.length === 0 ? "No results" : `${result.results.length} results`}</h2>
<ol class="listing">${result.results.map((h) => html`<li><a href="${consoleUrl.concept(kb, h.id)}">${h.title ?? h.id}</a> <span class="meta">${h.id} · ${h.type}</span><p class="snippet">${h.snippet}</p></li>`)}</ol>
</section>`
}`;
    return {
      status: 200,
      html: layout({ title: q ? `Search: ${q}` : "Search", viewer, kb, active: "search", body }),
    };
  },
};
