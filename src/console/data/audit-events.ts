/**
 * The audit page's recent calls for one viewer on one KB (docs/decisions.md "Console: audit
 * events a viewer may see"): a whole-KB reader sees every call on the KB; anyone else sees a call
 * only when every resource it names is a concept they can see and nothing else could name a
 * hidden one — a call that cannot be judged (an asset path, a map name, a write naming no
 * target) is left out, never masked, so no count of hidden work shows.
 */
import type { AuditCall, AuditWindow } from "./audit-window.js";
import type { ViewScope } from "./commit-view.js";

/** Resource fields that name concepts. */
const ID_FIELDS = new Set(["id", "from", "to", "by"]);
/** Resource fields that carry a mode, never a name. */
const MODE_FIELDS = new Set([
  "strategy",
  "variant",
  "force",
  "recursive",
  "rewrite_links",
  "resolve_secrets",
]);

/**
 * The concept ids `call` names, or null when it names something else (judged hidden from a
 * viewer without whole-KB access). A write naming nothing is null too: its commit may touch
 * anything. Pure.
 */
export function namedIds(call: Pick<AuditCall, "resources" | "read_only">): string[] | null {
  const ids: string[] = [];
  for (const [field, value] of Object.entries(call.resources)) {
    if (MODE_FIELDS.has(field)) continue;
    if (!ID_FIELDS.has(field)) return null;
    const values = Array.isArray(value) ? value : [value];
    for (const v of values) {
      if (typeof v !== "string") return null;
      ids.push(v);
    }
  }
  if (ids.length === 0 && !call.read_only) return null;
  return ids;
}

/** Calls one page looks at, at most. */
export const MAX_SCANNED_CALLS = 5_000;

export interface AuditPageQuery {
  kb: string;
  /** Show calls older than this `seq` (0 or absent: the newest). */
  before?: number;
  size: number;
  /** Only calls with no completion. */
  incompleteOnly?: boolean;
  /** Only this request (the feed links a commit to its call). */
  request?: string;
}

export interface AuditPage {
  calls: AuditCall[];
  /** `before` of the next (older) page; null at the window's start. */
  next: number | null;
}

/** Calls without a completion: interrupted, or still in flight. */
export function incomplete(call: AuditCall): boolean {
  return call.attempted && call.outcome === undefined;
}

/** Newest first, as `scope` may see them. */
export async function auditPage(
  window: AuditWindow,
  scope: ViewScope,
  q: AuditPageQuery,
): Promise<AuditPage> {
  const calls = window.calls;
  const out: AuditCall[] = [];
  let scanned = 0;
  for (let i = calls.length - 1; i >= 0; i--) {
    const call = calls[i] as AuditCall;
    if (q.before && call.seq >= q.before) continue;
    // Bounded: a sparse view pages on from where the scan stopped.
    if (++scanned > MAX_SCANNED_CALLS) return { calls: out, next: call.seq + 1 };
    if (call.kb !== q.kb) continue;
    if (q.request !== undefined && call.request_id !== q.request) continue;
    if (q.incompleteOnly && !incomplete(call)) continue;
    if (!(await mayView(call, scope))) continue;
    if (out.length === q.size) return { calls: out, next: (out.at(-1) as AuditCall).seq };
    out.push(call);
  }
  return { calls: out, next: null };
}

/** Whether `scope` may see `call` (of the KB the scope is for). */
export async function mayView(call: AuditCall, scope: ViewScope): Promise<boolean> {
  if (scope.all) return true;
  const ids = namedIds(call);
  if (ids === null) return false;
  if (ids.length === 0) return true;
  const seen = await scope.visibleIds(ids);
  return ids.every((id) => seen.has(id));
}
