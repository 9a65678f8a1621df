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
 *
 * Per target (placement = {map, journal}; "as if it existed": a missing target is judged with
 * the type it would get, `proposedType ?? null`):
 *  - readable  = some r-or-rw rule matches (placement, existing ? type : proposedType);
 *  - read target:  readable, else not_found_hidden;
 *  - write target: an rw rule matches (placement, type) when it exists, AND an rw rule matches
 *    (placement, proposedType) when one is given (or (placement, null) for a typeless create);
 *    otherwise forbidden when readable, not_found_hidden when not.
 *  Any not_found_hidden target makes the call not_found_hidden, else any forbidden → forbidden.
 *
 * Non-disclosure: `not_found_hidden` renders as exactly `not found`, byte-identical to a missing
 * concept; the reason depends only on what the principal could read, never on whether a hidden
 * target exists. A failed whole-KB requirement is `forbidden` (it does not depend on targets).
 * Allowed non-collection calls carry the read visibility, so handlers filter anything they list.
 */
import type { Placement, SelectorRule, Visibility } from "../kb/types.js";
import { isVisible } from "../kb/visibility.js";
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
  const targetsDecision = targetsReason(policy, req);
  if (targetsDecision !== null) return targetsDecision;
  if (req.requireWholeKb) return wholeKbDecision(policy, req.kb, req.access);
  return allow(visibilityFor(policy, req.kb, "r") ?? NOTHING);
}

function allow(visibility: Visibility): Decision {
  return Object.freeze({ allow: true, visibility });
}

function wholeKbDecision(policy: Policy, kb: string, access: Access): Decision {
  return hasWholeKb(policy, kb, access) ? allow(ALL) : FORBIDDEN;
}

/** null when every target is allowed; otherwise the denial. */
function targetsReason(policy: Policy, req: AuthRequest): Decision | null {
  if (req.targets.length === 0) {
    // Nothing named: fail closed unless the principal holds this kind of access on the KB.
    return visibilityFor(policy, req.kb, req.access) === null ? FORBIDDEN : null;
  }
  const read = visibilityFor(policy, req.kb, "r");
  const write = visibilityFor(policy, req.kb, "rw");
  let denial: Decision | null = null;
  for (const target of req.targets) {
    const verdict = targetVerdict(target, read, write);
    if (verdict === "hidden") return HIDDEN;
    if (verdict === "forbidden") denial = FORBIDDEN;
  }
  return denial;
}

function targetVerdict(
  target: TargetFacts,
  read: Visibility | null,
  write: Visibility | null,
): "ok" | "forbidden" | "hidden" {
  const placement: Placement = { map: target.map, journal: target.journal };
  const proposed = target.proposedType ?? null;
  const asIfType = target.exists ? target.type : proposed;
  const readable = read !== null && isVisible(read, placement, asIfType);
  if (!readable) return "hidden";
  if (!target.write) return "ok";
  if (write === null) return "forbidden";
  if (target.exists && !isVisible(write, placement, target.type)) return "forbidden";
  const needsProposedCheck =
    !target.exists || (target.proposedType !== undefined && target.proposedType !== null);
  if (needsProposedCheck && !isVisible(write, placement, proposed)) return "forbidden";
  return "ok";
}

/** The exact text of a denial: `not found` (byte-identical to a missing concept) or `forbidden`. */
export function denialText(reason: "forbidden" | "not_found_hidden"): "forbidden" | "not found" {
  return reason === "not_found_hidden" ? "not found" : "forbidden";
}
