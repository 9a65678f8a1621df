/**
 * The authorization decision (D118): one pure function of a compiled Policy and an AuthRequest.
 * Allow rules only, unioned; a rule applies to one KB; `rw` implies `r`; within a rule the
 * non-empty selectors intersect (container = maps ∪ journals, and types), as in isVisible.
 *
 * Rule table (first matching row wins):
 *
 *  | case                                   | decision                                          |
 *  |----------------------------------------|---------------------------------------------------|
 *  | policy.admin                           | allow, visibility {all:true}                      |
 *  | resourceClass null (unknown tool,      | forbidden (treated as a write; fail closed)       |
 *  |   unclassified, unparsable args)       |                                                   |
 *  | whole                                  | allow iff a selector-free rule grants `access`,   |
 *  |                                        |   else forbidden                                  |
 *  | collection                             | allow with visibilityFor(kb, access), forbidden   |
 *  |                                        |   when null; + whole-KB check if requireWholeKb   |
 *  | exact / src-dst / batch / curated-index| every target allowed (below), else the reason;    |
 *  |                                        |   then the whole-KB check if requireWholeKb       |
 *  |   … with no targets                    | allow iff some rule grants `access` on the KB     |
 *  |                                        |   (then the whole-KB check as above)              |
 *
 * Per target (placement = {map, journal}; proposed = `proposedType ?? null`, the type a write
 * would give; "seen" = the target exists AND some r-or-rw rule matches (placement, its type)):
 *
 *  | target                     | readable as            | rw as                  | verdict     |
 *  |                            | (placement, proposed)? | (placement, proposed)? |             |
 *  |----------------------------|------------------------|------------------------|-------------|
 *  | read, seen                 | —                      | —                      | ok          |
 *  | read, missing              | yes / no               | —                      | ok / hidden |
 *  | read, hidden (exists)      | —                      | —                      | hidden (1)  |
 *  | write, seen                | rw on its type, and on the proposed type  | ok, else forbidden   |
 *  |                            |   when one is given                       |                      |
 *  | write, missing or hidden   | no                     | —                      | hidden      |
 *  |   (judged as a create:     | yes                    | no                     | forbidden   |
 *  |   same answer for both)    | yes                    | yes                    | missing: ok |
 *  |                            |                        |                        | hidden: occupied (2) |
 *
 *  (1) a read has no proposed type; a rule that could read the missing id (placement, null) is
 *      typeless and so sees every concept there: "hidden" and "missing, readable" never meet.
 *  (2) the one case where existence cannot be hidden: the free id would have been created, the
 *      hidden concept must not be overwritten. `occupied` answers `not found` (like any hidden
 *      exact resource) but ranks below every other denial, so it decides only when the same
 *      call on the free id would have been allowed.
 *
 *  The call: any hidden target → not_found_hidden; else any forbidden → forbidden; else a failed
 *  whole-KB requirement → forbidden; else any occupied → not_found_hidden; else allow.
 *
 * Non-disclosure (docs/decisions.md "A hidden resource answers exactly `not found`"):
 * `not_found_hidden` renders as exactly `not found`, byte-identical to a missing concept. A target
 * the principal cannot see is judged only on what it can see — placement and the proposed type — so
 * a write to a hidden concept answers exactly what a write to the free id would, except in the one
 * case existence cannot be hidden (2). A failed whole-KB requirement is `forbidden` (it does not
 * depend on targets). Allowed non-collection calls carry the read visibility, so handlers filter
 * anything they list.
 */
import type { Placement, SelectorRule, Visibility } from "../kb/core/types.js";
import { isVisible } from "../kb/core/visibility.js";
import type {
  Access,
  AuthRequest,
  Decision,
  PermissionRule,
  Policy,
  TargetFacts,
} from "./types.js";

const ALL: Visibility = Object.freeze({ all: true });
const NOTHING: Visibility = Object.freeze({
  all: false,
  rules: Object.freeze([]) as unknown as SelectorRule[],
});
const FORBIDDEN: Decision = Object.freeze({ allow: false, reason: "forbidden" });
const HIDDEN: Decision = Object.freeze({ allow: false, reason: "not_found_hidden" });

function grants(rule: PermissionRule, kb: string, access: Access): boolean {
  return rule.kb === kb && (access === "r" || rule.access === "rw");
}

function selectorFree(rule: PermissionRule): boolean {
  return rule.maps.length === 0 && rule.journals.length === 0 && rule.types.length === 0;
}

// Policies are immutable, so each (policy, kb, access) visibility is computed once.
const cache = new WeakMap<Policy, Map<string, Visibility | null>>();

/**
 * What `policy` may see (access r) or change (access rw) of `kb`, as Visibility data for
 * search/ and tools/. null = no rule grants that access on that KB at all; a selector-free rule
 * gives {all:true}. The result is frozen.
 */
export function visibilityFor(policy: Policy, kb: string, access: Access): Visibility | null {
  if (policy.admin) return ALL;
  let perPolicy = cache.get(policy);
  if (perPolicy === undefined) {
    perPolicy = new Map();
    cache.set(policy, perPolicy);
  }
  const key = `${access}\u0000${kb}`;
  if (perPolicy.has(key)) return perPolicy.get(key) ?? null;
  const rules = policy.rules.filter((rule) => grants(rule, kb, access));
  let visibility: Visibility | null;
  if (rules.length === 0) visibility = null;
  else if (rules.some(selectorFree)) visibility = ALL;
  else {
    const selectors = rules.map((rule) =>
      Object.freeze({ maps: [...rule.maps], journals: [...rule.journals], types: [...rule.types] }),
    );
    visibility = Object.freeze({
      all: false,
      rules: Object.freeze(selectors) as unknown as SelectorRule[],
    });
  }
  perPolicy.set(key, visibility);
  return visibility;
}

/** Metadata gate (D187): initialize / tools/list / ping need read access to one of `kbs`. */
export function canReadAnyKb(policy: Policy, kbs: string[]): boolean {
  return policy.admin || kbs.some((kb) => visibilityFor(policy, kb, "r") !== null);
}

/** True when a selector-free rule grants `access` on `kb` (whole-KB tools and requirements). */
export function hasWholeKb(policy: Policy, kb: string, access: Access): boolean {
  return (
    policy.admin || policy.rules.some((rule) => grants(rule, kb, access) && selectorFree(rule))
  );
}

/** The decision for one call; see the rule table at the top of this file. */
export function authorize(policy: Policy, req: AuthRequest): Decision {
  if (policy.admin) return Object.freeze({ allow: true, visibility: ALL });
  if (req.resourceClass === null) return FORBIDDEN;
  if (req.resourceClass === "whole") return wholeKbDecision(policy, req.kb, req.access);
  if (req.resourceClass === "collection") {
    const visibility = visibilityFor(policy, req.kb, req.access);
    if (visibility === null) return FORBIDDEN;
    return req.requireWholeKb ? wholeKbDecision(policy, req.kb, req.access) : allow(visibility);
  }
  const verdict = targetsVerdict(policy, req);
  if (verdict === "hidden") return HIDDEN;
  if (verdict === "forbidden") return FORBIDDEN;
  if (req.requireWholeKb && !hasWholeKb(policy, req.kb, req.access)) return FORBIDDEN;
  // Last, so that an occupied id answers like the free id wherever that one is denied (note 2).
  if (verdict === "occupied") return HIDDEN;
  if (req.requireWholeKb) return allow(ALL);
  return allow(visibilityFor(policy, req.kb, "r") ?? NOTHING);
}

function allow(visibility: Visibility): Decision {
  return Object.freeze({ allow: true, visibility });
}

function wholeKbDecision(policy: Policy, kb: string, access: Access): Decision {
  return hasWholeKb(policy, kb, access) ? allow(ALL) : FORBIDDEN;
}

type Verdict = "ok" | "forbidden" | "hidden" | "occupied";

/** The worst verdict over the targets: hidden > forbidden > occupied > ok. */
function targetsVerdict(policy: Policy, req: AuthRequest): Verdict {
  if (req.targets.length === 0) {
    // Nothing named: fail closed unless the principal holds this kind of access on the KB.
    return visibilityFor(policy, req.kb, req.access) === null ? "forbidden" : "ok";
  }
  const read = visibilityFor(policy, req.kb, "r");
  const write = visibilityFor(policy, req.kb, "rw");
  const rank: Record<Verdict, number> = { ok: 0, occupied: 1, forbidden: 2, hidden: 3 };
  let worst: Verdict = "ok";
  for (const target of req.targets) {
    const verdict = targetVerdict(target, read, write);
    if (rank[verdict] > rank[worst]) worst = verdict;
  }
  return worst;
}

function targetVerdict(
  target: TargetFacts,
  read: Visibility | null,
  write: Visibility | null,
): Verdict {
  const placement: Placement = { map: target.map, journal: target.journal };
  const proposed = target.proposedType ?? null;
  const canRead = (type: string | null) => read !== null && isVisible(read, placement, type);
  const canWrite = (type: string | null) => write !== null && isVisible(write, placement, type);
  const seen = target.exists && canRead(target.type);
  if (!target.write) return seen || (!target.exists && canRead(proposed)) ? "ok" : "hidden";
  if (seen) {
    if (!canWrite(target.type)) return "forbidden";
    if (target.proposedType != null && !canWrite(proposed)) return "forbidden";
    return "ok";
  }
  // Missing or hidden: judged as a create from what the principal can see, never from what
  // exists — except that an existing hidden concept is never written (see the table).
  if (!canRead(proposed)) return "hidden";
  if (!canWrite(proposed)) return "forbidden";
  return target.exists ? "occupied" : "ok";
}
