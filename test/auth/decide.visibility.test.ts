/**
 * The compiled Visibility agrees with the policy: for random policies and concepts,
 * isVisible(visibilityFor(policy, kb, access)) equals "some rule granting that access on that KB
 * matches the concept" evaluated directly on the rules.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { visibilityFor } from "../../src/auth/decide.js";
import type { Access, PermissionRule, Policy } from "../../src/auth/types.js";
import type { Placement } from "../../src/kb/core/types.js";
import { isVisible } from "../../src/kb/core/visibility.js";

const subset = (values: string[]) => fc.subarray(values);
const ruleArb: fc.Arbitrary<PermissionRule> = fc.record({
  kb: fc.constantFrom("a", "b"),
  access: fc.constantFrom<Access>("r", "rw"),
  maps: subset(["m1", "m2"]),
  journals: subset(["j1"]),
  types: subset(["t1", "t2"]),
});
interface Concept {
  placement: Placement;
  type: string | null;
}
const conceptArb: fc.Arbitrary<Concept> = fc.record({
  placement: fc.constantFrom(
    { map: "m1", journal: null },
    { map: "m2", journal: null },
    { map: "m3", journal: null },
    { map: null, journal: "j1" },
    { map: null, journal: "j2" },
    { map: null, journal: null },
  ),
  type: fc.constantFrom("t1", "t2", "t3", null),
});

/** Reference semantics written out longhand from D118. */
function directlyAllowed(policy: Policy, kb: string, access: Access, c: Concept): boolean {
  return policy.rules.some((rule) => {
    if (rule.kb !== kb) return false;
    if (access === "rw" && rule.access !== "rw") return false;
    const containers = rule.maps.length + rule.journals.length;
    const inContainer =
      (c.placement.map !== null && rule.maps.includes(c.placement.map)) ||
      (c.placement.journal !== null && rule.journals.includes(c.placement.journal));
    if (containers > 0 && !inContainer) return false;
    if (rule.types.length > 0 && (c.type === null || !rule.types.includes(c.type))) return false;
    return true;
  });
}

describe("visibilityFor matches the rules", () => {
  it("for every concept, KB and access", () => {
    fc.assert(
      fc.property(
        fc.array(ruleArb, { maxLength: 4 }),
        fc.constantFrom("a", "b"),
        fc.constantFrom<Access>("r", "rw"),
        conceptArb,
        (rules, kb, access, concept) => {
          const policy: Policy = { admin: false, rules };
          const visibility = visibilityFor(policy, kb, access);
          const granted = rules.some((r) => r.kb === kb && (access === "r" || r.access === "rw"));
          expect(visibility === null).toBe(!granted);
          const seen =
            visibility !== null && isVisible(visibility, concept.placement, concept.type);
          expect(seen).toBe(directlyAllowed(policy, kb, access, concept));
        },
      ),
      { numRuns: 500 },
    );
  });
});
