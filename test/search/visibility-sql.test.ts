import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { SelectorRule, Visibility } from "../../src/kb/core/types.js";
import { isVisible } from "../../src/kb/core/visibility.js";
import { openSearchIndex } from "../../src/search/sqlite-index.js";
import { doc } from "./docs.js";

const NAMES = ["infra", "people", "ops", "diary"];
const TYPES = ["note", "service", "runbook", ""];

const placement = fc.oneof(
  fc.record({ map: fc.constantFrom(...NAMES), journal: fc.constant(null) }),
  fc.record({ map: fc.constant(null), journal: fc.constantFrom(...NAMES) }),
  fc.constant({ map: null, journal: null }),
);
const docSpec = fc.record({ placement, type: fc.constantFrom(...TYPES) });
const selector = fc.uniqueArray(fc.constantFrom(...NAMES), { maxLength: 3 });
const rule: fc.Arbitrary<SelectorRule> = fc.record({
  maps: selector,
  journals: selector,
  types: fc.uniqueArray(fc.constantFrom(...TYPES), { maxLength: 3 }),
});
const visibility: fc.Arbitrary<Visibility> = fc.oneof(
  fc.constant({ all: true } as Visibility),
  fc.array(rule, { maxLength: 4 }).map((rules) => ({ all: false, rules }) as Visibility),
);

describe("visibility SQL", () => {
  it("selects exactly the concepts isVisible accepts, in list and search", () => {
    fc.assert(
      fc.property(fc.array(docSpec, { minLength: 1, maxLength: 25 }), visibility, (specs, vis) => {
        const index = openSearchIndex(":memory:");
        try {
          const docs = specs.map((s, i) =>
            doc(`c${i}`, {
              frontmatter: { type: s.type, title: `concept ${i}` },
              body: "shared words",
              map: s.placement.map,
              journal: s.placement.journal,
            }),
          );
          index.reconcile(docs);
          const expected = docs
            .filter((d) => isVisible(vis, d, d.type))
            .map((d) => d.id)
            .sort();
          const listed = index.list({ limit: 1000, visibility: vis });
          expect(listed.items.map((i) => i.id).sort()).toEqual(expected);
          expect(listed.total).toBe(expected.length);
          const found = index.search({ query: "shared", limit: 1000, visibility: vis });
          expect(found.results.map((h) => h.id).sort()).toEqual(expected);
        } finally {
          index.close();
        }
      }),
      { numRuns: 150 },
    );
  });
});
