/**
 * `/console/<kb>/c/<id>/history`: the commits of one concept across its renames
 * (data/concept-history.ts), each linking to its diff and naming the id it had then. A hidden,
 * unknown or malformed id, or a cursor that is not a followable rename of it, is the one 404.
 */
import {
  conceptHistory,
  FIRST_PAGE,
  formatHistoryCursor,
  type HistoryCursor,
  type HistoryEntry,
  parseHistoryCursor,
} from "../data/concept-history.js";
import { govKb } from "../data/viewer-kb.js";
import { html, type Safe } from "../html.js";
import { ConsoleError } from "../outcome.js";
import { layout } from "../page.js";
import { consoleUrl } from "../paths.js";
import type { ConsolePage } from "../router.js";
import { callsOf } from "./activity.js";
import { MAX_BACK } from "./activity-query.js";
import { commitList, pager } from "./activity-render.js";

export const historyPage: ConsolePage = {
  pattern: "/console/:kb/c/*id/history",
  methods: ["GET"],
  async handle(req, kbs) {
    const kb = req.params.kb as string;
    const id = req.params.id as string;
    const { access, scope } = govKb(kbs, req.viewer, kb);
    const q = historyQuery(req.query);
    const page = await conceptHistory(access.root, scope, id, q.at);
    if (page === null) throw new ConsoleError("not_found", "not found");
    const calls = await callsOf(
      kbs,
      kb,
      page.commits.map((c) => c.sha),
    );
    const path = consoleUrl.history(kb, id);
    const first = q.text === "0";
    const prev = first ? null : { at: q.back.at(-1) ?? "0", back: q.back.slice(0, -1) };
    const next =
      page.next === null
        ? null
        : {
            at: formatHistoryCursor(page.next),
            back: first ? [] : [...q.back, q.text].slice(-MAX_BACK),
          };
    const body = html`<h1>History of <a href="${consoleUrl.concept(kb, id)}">${id}</a></h1>
${page.partial ? html`<p class="note">This page stopped after reading ${page.scanned} commits; older ones continue on the next page.</p>` : null}
${commitList(kb, page.commits, calls, (c) => nameNote(id, c))}
${page.movesCut ? html`<p class="note">The history stops here: the concept was renamed more often than this page follows.</p>` : null}
${pager(path, {}, prev, next)}`;
    return {
      status: 200,
      html: layout({ title: `History of ${id}`, viewer: req.viewer, kb, active: "browse", body }),
    };
  },
};

/** "renamed from <old>" on a followed rename; "as <name>" on the commits made under an older name. */
function nameNote(id: string, c: HistoryEntry): Safe | null {
  if (c.renamedFrom !== undefined)
    return html`<span class="name">renamed from <code>${c.renamedFrom}</code>${c.name === id ? null : html` to <code>${c.name}</code>`}</span>`;
  if (c.name === id) return null;
  return html`<span class="name">as <code>${c.name}</code></span>`;
}

interface HistoryQuery {
  at: HistoryCursor;
  /** `at` as the link carried it ("0": the first page). */
  text: string;
  /** Cursors of the pages before (the last is the previous page). */
  back: string[];
}

/** `at` and `back` of a history link; a malformed one is a 400 naming it. */
function historyQuery(q: URLSearchParams): HistoryQuery {
  const cursor = (field: string, value: string): HistoryCursor => {
    const c = parseHistoryCursor(value);
    if (c === null)
      throw new ConsoleError("invalid_argument", `${field} must be a page cursor of this history`);
    return c;
  };
  const text = q.get("at")?.trim() || "0";
  const at = text === "0" ? FIRST_PAGE : cursor("at", text);
  const back = (q.get("back")?.trim() ?? "")
    .split(".")
    .filter((s) => s !== "")
    .slice(-MAX_BACK);
  for (const b of back) cursor("back", b);
  return { at, text: formatHistoryCursor(at), back };
}
