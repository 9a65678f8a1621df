/**
 * No existence probing through the decision (docs/decisions.md "A hidden resource answers exactly
 * `not found`"), exhaustively over a small world: for every policy, every concept the policy cannot
 * see, every proposed type, with every other target beside it and with or without a whole-KB
 * requirement, the decision on the hidden concept equals the decision on the free id — unless the
 * free id is allowed (the principal could create it), where the hidden one is `not found`
 * (decide.ts, table note 2).
 */
import { describe, expect, it } from "vitest";
import { authorize } from "../../src/auth/decide.js";
import { compileAuth } from "../../src/auth/tokens.js";
import type { AuthRequest, Decision, Principal, TargetFacts } from "../../src/auth/types.js";

const KB = "kb";
type Rule = { kb: string; access: "r" | "rw"; maps?: string[]; types?: string[] };
const ROLES: Record<string, Rule[]> = {
  "map-type": [{ kb: KB, access: "rw", maps: ["a"], types: ["note"] }],
  split: [
    { kb: KB, access: "r", types: ["note", "doc"] },
    { kb: KB, access: "rw", maps: ["a"], types: ["note"] },
  ],
  typed: [{ kb: KB, access: "rw", types: ["note"] }],
  "map-only": [{ kb: KB, access: "rw", maps: ["a"] }],
  "read-a-write-b": [
    { kb: KB, access: "r", maps: ["a"] },
    { kb: KB, access: "rw", maps: ["b"], types: ["note"] },
  ],
  "read-typed": [{ kb: KB, access: "r", types: ["doc"] }],
};
const compiled = compileAuth({
  mode: true,
  roles: Object.entries(ROLES).map(([name, rules]) => ({ name, rules })),
  tokens: Object.keys(ROLES).map((name) => ({ token: `t-${name}`, id: name, roles: [name] })),
});

const MAPS = ["a", "b", null];
const TYPES = ["note", "doc", "task"];
const PROPOSED = [...TYPES, undefined];

function fact(map: string | null, type: string | null, more: Partial<TargetFacts>): TargetFacts {
  return { map, journal: null, type, exists: type !== null, write: true, ...more };
}

/** Other targets a call may carry beside the probed one (a move source, batch siblings). */
const COMPANIONS: TargetFacts[][] = [
  [],
  ...MAPS.flatMap((map) => TYPES.map((type) => [fact(map, type, {})])),
  ...MAPS.map((map) => [fact(map, null, { proposedType: "note" })]),
];

function decide(p: Principal, targets: TargetFacts[], requireWholeKb: boolean): Decision {
  const req: AuthRequest = {
    kb: KB,
    access: "rw",
    resourceClass: "exact",
    targets,
    requireWholeKb,
  };
  return authorize(p.policy, req);
}

function canSee(p: Principal, map: string | null, type: string): boolean {
  const read: AuthRequest = {
    kb: KB,
    access: "r",
    resourceClass: "exact",
    targets: [fact(map, type, { write: false })],
    requireWholeKb: false,
  };
  return authorize(p.policy, read).allow;
}

describe("decide: a hidden concept and a free id decide alike", () => {
  it("over principals × placements × types × proposed types × companions × whole-KB", () => {
    let compared = 0;
    let creatable = 0;
    for (const p of compiled.principals) {
      for (const map of MAPS) {
        for (const hiddenType of TYPES) {
          if (canSee(p, map, hiddenType)) continue;
          for (const proposedType of PROPOSED) {
            const extra = proposedType === undefined ? {} : { proposedType };
            const hidden = fact(map, hiddenType, extra);
            const free = fact(map, null, extra);
            for (const companions of COMPANIONS) {
              for (const whole of [false, true]) {
                const onFree = decide(p, [...companions, free], whole);
                const onHidden = decide(p, [...companions, hidden], whole);
                const what = `${p.id} ${map}/${hiddenType} proposing ${proposedType} with ${JSON.stringify(companions)} whole=${whole}`;
                if (onFree.allow) {
                  expect(onHidden, what).toEqual({ allow: false, reason: "not_found_hidden" });
                  creatable++;
                } else {
                  expect(onHidden, what).toEqual(onFree);
                  compared++;
                }
              }
            }
          }
        }
      }
    }
    expect(compared).toBeGreaterThan(1000);
    expect(creatable).toBeGreaterThan(0);
  });
});
