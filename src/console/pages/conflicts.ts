/**
 * `/console/<kb>/conflicts`: each registered conflict the viewer may see (`conflicts_list`, called
 * as the viewer) with both sides' text side by side; and the one write of the console, POST
 * `/console/<kb>/conflicts/<id>/resolve` (CSRF and Origin checked by the dispatcher first): an
 * admin of the KB resolves through `git_conflict_resolve` — the call pipeline, audited with
 * transport `console` — then is sent back (303) to the list with the outcome.
 */
import { isValidId } from "../../kb/core/ids.js";
import { conflictRows, conflictSides } from "../data/conflict-sides.js";
import { govKb } from "../data/viewer-kb.js";
import { html } from "../html.js";
import { ConsoleError } from "../outcome.js";
import { layout } from "../page.js";
import { consoleUrl, withQuery } from "../paths.js";
import type { ConsolePage } from "../router.js";
import { conflictSection, outcomeBanner } from "./conflicts-render.js";

/** Conflicts shown on one page at most (each reads two bounded blobs). */
const PAGE = 50;

export const conflictsPage: ConsolePage = {
  pattern: "/console/:kb/conflicts",
  methods: ["GET"],
  async handle(req, kbs) {
    const kb = req.params.kb as string;
    const { access } = govKb(kbs, req.viewer, kb);
    const rows = conflictRows(await kbs.read(req.viewer, kb, "conflicts_list", {}));
    const shown = rows.slice(0, PAGE);
    const views = await Promise.all(
      shown.map(async (row) => ({ row, ...(await conflictSides(access.root, row)) })),
    );
    const csrf = req.viewer.isAdmin(kb) ? req.viewer.csrf : null;
    const q = req.query;
    const idOf = (name: string) => {
      const v = q.get(name);
      return v !== null && isValidId(v) ? v : null;
    };
    const code = q.get("code");
    const body = html`<h1>Conflicts</h1>
${outcomeBanner(idOf("resolved"), idOf("failed"), code !== null && /^[a-z_]{1,40}$/.test(code) ? code : null)}
${views.length === 0 ? html`<p class="empty">No conflict is registered.</p>` : views.map((v) => conflictSection(kb, v, csrf))}
${rows.length > PAGE ? html`<p class="note">Showing the first ${PAGE}; resolve these to see the rest.</p>` : null}`;
    return {
      status: 200,
      html: layout({ title: "Conflicts", viewer: req.viewer, kb, active: "conflicts", body }),
    };
  },
};

const STRATEGIES = new Set(["ours", "theirs", "edit"]);

export const conflictResolvePage: ConsolePage = {
  pattern: "/console/:kb/conflicts/*id/resolve",
  methods: ["POST"],
  async handle(req, kbs) {
    const kb = req.params.kb as string;
    const id = req.params.id as string;
    govKb(kbs, req.viewer, kb);
    if (!req.viewer.isAdmin(kb)) throw new ConsoleError("forbidden", "forbidden");
    if (!isValidId(id)) throw new ConsoleError("not_found", "not found");
    const strategy = req.form?.get("strategy") ?? "";
    if (!STRATEGIES.has(strategy))
      throw new ConsoleError("invalid_argument", "strategy must be ours, theirs or edit");
    const body = req.form?.get("body");
    const args: Record<string, unknown> = { id, strategy };
    if (strategy === "edit") args.body = (body ?? "").replace(/\r\n/g, "\n");
    const r = await kbs.call(req.viewer, kb, "git_conflict_resolve", args);
    const back = consoleUrl.conflicts(kb);
    return {
      redirect: r.ok
        ? withQuery(back, { resolved: id })
        : withQuery(back, { failed: id, code: r.code }),
    };
  },
};
