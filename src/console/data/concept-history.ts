/**
 * A concept's history across its renames, as `git log --follow` would show it (docs/decisions.md
 * "Console: a concept's history follows its renames"): the commits touching its files
 * (`data/<id>.md`, `data/<id>/index.md`); at the commit that renamed it there from another
 * concept path (a `concept_move`), the history goes on with that older name from the commit's
 * first parent, each entry carrying the name it had then. A rename is followed only when the
 * viewer may see the older name (the one rule of every console page, scope.ts); otherwise the
 * history ends at the move, which then shows as the concept's creation — a narrow viewer never
 * learns a name it cannot see. Paged and bounded like the feed (feed.ts): the cursor names the
 * renames followed so far by their commits (never a name) and the commits read since the last.
 */
import { candidatePaths, isValidId, pathToId } from "../../kb/core/ids.js";
import {
  idsOfCommit,
  MAX_COMMIT_FILES,
  type ViewedCommit,
  type ViewScope,
  viewCommit,
} from "./commit-view.js";
import { MAX_SCANNED, PAGE_SIZE, SCAN_BUDGET_MS } from "./feed.js";
import { type RawCommit, readCommit, readLog, resolveCommit } from "./git-reads.js";

/** Renames followed at most: past them the history stops (and says so). */
export const MAX_MOVES = 10;
/** Hex digits of a rename's commit in a cursor (the link stays short; git resolves them). */
const CURSOR_SHA = 16;
const BATCH = 200;

/** Where a page starts: the renames followed before it (their commits, newest first), then `skip` commits. */
export interface HistoryCursor {
  moves: readonly string[];
  skip: number;
}

export const FIRST_PAGE: HistoryCursor = { moves: [], skip: 0 };

export interface HistoryEntry extends ViewedCommit {
  /** The concept's id at this commit (after it, for the rename itself). */
  name: string;
  /** This commit renamed the concept from this id (followed: the viewer may see it). */
  renamedFrom?: string;
}

export interface HistoryPage {
  commits: HistoryEntry[];
  next: HistoryCursor | null;
  scanned: number;
  /** Stopped at its read bound or time budget, not at its size. */
  partial: boolean;
  /** History ended at the MAX_MOVES-th rename, not at the concept's creation. */
  movesCut: boolean;
}

/** `17`, or `<sha>_<sha>-17`: the cursor as a link carries it (pure). */
export function formatHistoryCursor(c: HistoryCursor): string {
  return c.moves.length === 0 ? String(c.skip) : `${c.moves.join("_")}-${c.skip}`;
}

/** The cursor of `text`, or null when malformed (pure). */
export function parseHistoryCursor(text: string): HistoryCursor | null {
  const m = /^(?:([0-9a-f]{7,40}(?:_[0-9a-f]{7,40})*)-)?(\d{1,9})$/.exec(text);
  if (m === null) return null;
  const moves = m[1] === undefined ? [] : m[1].split("_");
  return moves.length > MAX_MOVES ? null : { moves, skip: Number(m[2]) };
}

/**
 * The id `raw` renamed to `id` (one of its paths the new side of a rename), when it is another
 * concept's; null otherwise (an expansion `x.md` → `x/index.md` is the same id). Pure.
 */
export function renameSource(raw: RawCommit, id: string): string | null {
  const mine = candidatePaths(id);
  for (const f of raw.files.slice(0, MAX_COMMIT_FILES)) {
    const [from, to] = f.paths;
    if (f.status !== "R" || from === undefined || to === undefined || !mine.includes(to)) continue;
    const old = pathToId(from);
    if (old !== null && old !== id) return old;
  }
  return null;
}

/**
 * One page of the history of `id` for `scope`; null when the id is malformed, hidden or has no
 * commit at all, or when the cursor names something that is not a followable rename of it —
 * one answer for all.
 */
export async function conceptHistory(
  root: string,
  scope: ViewScope,
  id: string,
  cursor: HistoryCursor = FIRST_PAGE,
  opts: { size?: number; now?: () => number } = {},
): Promise<HistoryPage | null> {
  if (!isValidId(id) || !(await mayFollow(scope, id))) return null;
  // Replay the renames the cursor names: each a commit of the KB renaming the name followed so
  // far from one the viewer may see. A link is never trusted to carry a name.
  let name = id;
  let from: string | undefined;
  for (const sha of cursor.moves) {
    const full = await resolveCommit(root, sha);
    const raw = full === null ? null : await readCommit(root, full);
    const old = raw === null ? null : renameSource(raw, name);
    if (raw === null || old === null || !(await mayFollow(scope, old))) return null;
    name = old;
    from = `${raw.sha}^`;
  }
  const size = opts.size ?? PAGE_SIZE;
  const now = opts.now ?? (() => performance.now());
  const started = now();
  const moves = [...cursor.moves];
  const out: HistoryEntry[] = [];
  let skip = cursor.skip;
  let scanned = 0;
  const page = (next: HistoryCursor | null, extra: Partial<HistoryPage> = {}): HistoryPage => ({
    commits: out,
    next,
    scanned,
    partial: false,
    movesCut: false,
    ...extra,
  });
  for (;;) {
    const count = Math.min(scanned === 0 ? size : BATCH, MAX_SCANNED - scanned);
    const batch = await readLog(root, {
      ...(from !== undefined ? { from } : {}),
      skip,
      count,
      paths: candidatePaths(name),
    });
    const visible = scope.all
      ? new Set<string>()
      : await scope.visibleIds(batch.flatMap(idsOfCommit));
    let renamed = false;
    for (const raw of batch) {
      skip++;
      scanned++;
      const old = renameSource(raw, name);
      const follow = old !== null && (await mayFollow(scope, old));
      const seen = viewCommit(raw, scope.all, visible);
      if (seen)
        out.push({ ...seen, name, ...(follow && old !== null ? { renamedFrom: old } : {}) });
      if (old !== null) {
        // Older commits of this path belong to whatever had the name before: not this concept.
        if (!follow) return page(null);
        if (moves.length === MAX_MOVES) return page(null, { movesCut: true });
        moves.push(raw.sha.slice(0, CURSOR_SHA));
        name = old;
        from = `${raw.sha}^`;
        skip = 0;
        renamed = true;
      }
      if (out.length === size) return page({ moves: [...moves], skip });
      if (renamed) break;
    }
    if (!renamed && batch.length < count) {
      if (cursor.moves.length === 0 && cursor.skip === 0 && out.length === 0) return null;
      return page(null);
    }
    if (scanned >= MAX_SCANNED || now() - started > SCAN_BUDGET_MS)
      return page({ moves: [...moves], skip }, { partial: true });
  }
}

async function mayFollow(scope: ViewScope, id: string): Promise<boolean> {
  return scope.all || (await scope.visibleIds([id])).has(id);
}
