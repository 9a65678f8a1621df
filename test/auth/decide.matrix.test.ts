/**
 * Every resource class × {admin, kb r, kb rw, role limited to one map and one type, token for
 * another KB} → the expected decision, from one table (D118).
 */
import { describe, expect, it } from "vitest";
import { authorize } from "../../src/auth/decide.js";
import type { AuthRequest, Decision, TargetFacts } from "../../src/auth/types.js";
import { KB, PRINCIPAL_NAMES, type PrincipalName, principals } from "./principals.js";

/** all = allowed seeing everything; sel = allowed with the role's selector visibility. */
type Outcome = "all" | "sel" | "forbidden" | "hidden";

const NARROW_VISIBILITY = {
  all: false,
  rules: [{ maps: ["infra"], journals: [], types: ["runbook"] }],
};

function target(facts: Partial<TargetFacts>): TargetFacts {
  return { map: null, journal: null, type: null, exists: true, write: false, ...facts };
}
const runbook = { map: "infra", type: "runbook" } as const;
const visibleRead = target(runbook);
const visibleWrite = target({ ...runbook, write: true });
const hiddenRead = target({ map: "apps", type: "note" });
const hiddenWrite = target({ map: "apps", type: "note", write: true });
const journalEntry = target({ journal: "log", type: "runbook" });

interface Row {
  name: string;
  req: Omit<AuthRequest, "kb">;
  expect: Record<PrincipalName, Outcome>;
}

const req = (
  resourceClass: AuthRequest["resourceClass"],
  access: AuthRequest["access"],
  targets: TargetFacts[] = [],
  requireWholeKb = false,
) => ({ resourceClass, access, targets, requireWholeKb });

const rows: Row[] = [
  {
    name: "whole read (kb_status, reindex-like reads)",
    req: req("whole", "r"),
    expect: { admin: "all", r: "all", rw: "all", narrow: "forbidden", other: "forbidden" },
  },
  {
    name: "whole write",
    req: req("whole", "rw"),
    expect: { admin: "all", r: "forbidden", rw: "all", narrow: "forbidden", other: "forbidden" },
  },
  {
    name: "collection read (search, concept_list)",
    req: req("collection", "r"),
    expect: { admin: "all", r: "all", rw: "all", narrow: "sel", other: "forbidden" },
  },
  {
    name: "collection write",
    req: req("collection", "rw"),
    expect: { admin: "all", r: "forbidden", rw: "all", narrow: "sel", other: "forbidden" },
  },
  {
    name: "collection read needing whole KB (graph_neighbors depth > 1)",
    req: req("collection", "r", [], true),
    expect: { admin: "all", r: "all", rw: "all", narrow: "forbidden", other: "forbidden" },
  },
  {
    name: "exact read of a concept the role covers",
    req: req("exact", "r", [visibleRead]),
    expect: { admin: "all", r: "all", rw: "all", narrow: "sel", other: "hidden" },
  },
  {
    name: "exact read of a concept outside the role",
    req: req("exact", "r", [hiddenRead]),
    expect: { admin: "all", r: "all", rw: "all", narrow: "hidden", other: "hidden" },
  },
  {
    name: "exact read of a journal entry (role names only a map)",
    req: req("exact", "r", [journalEntry]),
    expect: { admin: "all", r: "all", rw: "all", narrow: "hidden", other: "hidden" },
  },
  {
    name: "exact read of a missing concept in the role's map",
    req: req("exact", "r", [target({ map: "infra", exists: false })]),
    expect: { admin: "all", r: "all", rw: "all", narrow: "hidden", other: "hidden" },
  },
  {
    name: "exact write of a covered concept",
    req: req("exact", "rw", [visibleWrite]),
    expect: { admin: "all", r: "forbidden", rw: "all", narrow: "sel", other: "hidden" },
  },
  {
    name: "exact write changing a covered concept to another type",
    req: req("exact", "rw", [{ ...visibleWrite, proposedType: "note" }]),
    expect: { admin: "all", r: "forbidden", rw: "all", narrow: "forbidden", other: "hidden" },
  },
  {
    name: "exact write of a concept outside the role",
    req: req("exact", "rw", [hiddenWrite]),
    expect: { admin: "all", r: "forbidden", rw: "all", narrow: "hidden", other: "hidden" },
  },
  {
    name: "exact write retyping a hidden concept into the role's type",
    req: req("exact", "rw", [{ ...hiddenWrite, map: "infra", proposedType: "runbook" }]),
    expect: { admin: "all", r: "forbidden", rw: "all", narrow: "hidden", other: "hidden" },
  },
  {
    name: "exact create in the role's map with the role's type",
    req: req("exact", "rw", [
      target({ map: "infra", exists: false, write: true, proposedType: "runbook" }),
    ]),
    expect: { admin: "all", r: "forbidden", rw: "all", narrow: "sel", other: "hidden" },
  },
  {
    name: "exact create in another map",
    req: req("exact", "rw", [
      target({ map: "apps", exists: false, write: true, proposedType: "runbook" }),
    ]),
    expect: { admin: "all", r: "forbidden", rw: "all", narrow: "hidden", other: "hidden" },
  },
  {
    name: "src-dst move inside the role",
    req: req("src-dst", "rw", [
      visibleWrite,
      target({ map: "infra", exists: false, write: true, proposedType: "runbook" }),
    ]),
    expect: { admin: "all", r: "forbidden", rw: "all", narrow: "sel", other: "hidden" },
  },
  {
    name: "src-dst move out of the role's map",
    req: req("src-dst", "rw", [
      visibleWrite,
      target({ map: "apps", exists: false, write: true, proposedType: "runbook" }),
    ]),
    expect: { admin: "all", r: "forbidden", rw: "all", narrow: "hidden", other: "hidden" },
  },
  {
    name: "src-dst move with link rewriting (whole-KB write)",
    req: req(
      "src-dst",
      "rw",
      [visibleWrite, target({ map: "infra", exists: false, write: true, proposedType: "runbook" })],
      true,
    ),
    expect: { admin: "all", r: "forbidden", rw: "all", narrow: "forbidden", other: "hidden" },
  },
  {
    name: "batch all inside the role",
    req: req("batch", "rw", [visibleWrite, { ...visibleWrite, map: "infra" }]),
    expect: { admin: "all", r: "forbidden", rw: "all", narrow: "sel", other: "hidden" },
  },
  {
    name: "batch with one retyping op (readable, not writable) → forbidden",
    req: req("batch", "rw", [visibleWrite, { ...visibleWrite, proposedType: "note" }]),
    expect: { admin: "all", r: "forbidden", rw: "all", narrow: "forbidden", other: "hidden" },
  },
  {
    name: "batch with one hidden op → not found wins over forbidden",
    req: req("batch", "rw", [{ ...visibleWrite, proposedType: "note" }, hiddenWrite]),
    expect: { admin: "all", r: "forbidden", rw: "all", narrow: "hidden", other: "hidden" },
  },
  {
    name: "curated index of a map (index has no type)",
    req: req("curated-index", "rw", [target({ map: "infra", write: true })]),
    expect: { admin: "all", r: "forbidden", rw: "all", narrow: "hidden", other: "hidden" },
  },
  {
    name: "curated root index (whole-KB write)",
    req: req("curated-index", "rw", [target({ write: true })], true),
    expect: { admin: "all", r: "forbidden", rw: "all", narrow: "hidden", other: "hidden" },
  },
  {
    name: "exact read naming no target: needs some read access to the KB",
    req: req("exact", "r", []),
    expect: { admin: "all", r: "all", rw: "all", narrow: "sel", other: "forbidden" },
  },
  {
    name: "unknown / unclassified tool or unparsable args (treated as write)",
    req: req(null, "rw"),
    expect: {
      admin: "all",
      r: "forbidden",
      rw: "forbidden",
      narrow: "forbidden",
      other: "forbidden",
    },
  },
  {
    name: "unclassified tool even when marked read-only",
    req: req(null, "r", [visibleRead]),
    expect: {
      admin: "all",
      r: "forbidden",
      rw: "forbidden",
      narrow: "forbidden",
      other: "forbidden",
    },
  },
];

function outcome(decision: Decision): Outcome {
  if (!decision.allow) return decision.reason === "not_found_hidden" ? "hidden" : "forbidden";
  if (decision.visibility.all) return "all";
  expect(decision.visibility).toEqual(NARROW_VISIBILITY);
  return "sel";
}

describe("authorize: resource class × principal table", () => {
  for (const row of rows) {
    for (const name of PRINCIPAL_NAMES) {
      it(`${row.name}: ${name} → ${row.expect[name]}`, () => {
        const decision = authorize(principals[name].policy, { kb: KB, ...row.req });
        expect(outcome(decision)).toBe(row.expect[name]);
      });
    }
  }

  it("every resource class appears in the table", () => {
    const classes = new Set(rows.map((r) => r.req.resourceClass));
    for (const c of ["exact", "collection", "src-dst", "curated-index", "batch", "whole", null]) {
      expect(classes.has(c as AuthRequest["resourceClass"])).toBe(true);
    }
  });
});
