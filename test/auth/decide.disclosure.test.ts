/** Non-disclosure (D118): a hidden concept is indistinguishable from a missing one. */
import { describe, expect, it } from "vitest";
import { authorize, canReadAnyKb, hasWholeKb, visibilityFor } from "../../src/auth/decide.js";
import type { AuthRequest, TargetFacts } from "../../src/auth/types.js";
import { LOCAL_ADMIN } from "../../src/mcp/context.js";
import { KB, principals } from "./principals.js";

const exactRead = (t: TargetFacts): AuthRequest => ({
  kb: KB,
  access: "r",
  resourceClass: "exact",
  targets: [t],
  requireWholeKb: false,
});

describe("hidden vs missing vs forbidden", () => {
  it("an existing concept the role cannot read decides exactly like a missing one", () => {
    const { policy } = principals.narrow;
    const hidden = authorize(
      policy,
      exactRead({ map: "apps", journal: null, type: "note", exists: true, write: false }),
    );
    const missing = authorize(
      policy,
      exactRead({ map: "apps", journal: null, type: null, exists: false, write: false }),
    );
    expect(hidden).toEqual({ allow: false, reason: "not_found_hidden" });
    expect(JSON.stringify(hidden)).toBe(JSON.stringify(missing));
  });

  it("a write the principal can read but not perform is forbidden, not hidden", () => {
    const decision = authorize(principals.r.policy, {
      ...exactRead({ map: "infra", journal: null, type: "runbook", exists: true, write: true }),
      access: "rw",
    });
    expect(decision).toEqual({ allow: false, reason: "forbidden" });
  });

  it("creating where a hidden concept of another type already sits answers not found, like any unreadable target", () => {
    const decision = authorize(principals.narrow.policy, {
      ...exactRead({
        map: "infra",
        journal: null,
        type: "secret",
        exists: true,
        write: true,
        proposedType: "runbook",
      }),
      access: "rw",
    });
    expect(decision).toEqual({ allow: false, reason: "not_found_hidden" });
  });
});

describe("visibilityFor", () => {
  it("rw implies r, r never implies rw", () => {
    expect(visibilityFor(principals.rw.policy, KB, "r")).toEqual({ all: true });
    expect(visibilityFor(principals.r.policy, KB, "rw")).toBeNull();
  });

  it("is null for a KB no rule names", () => {
    expect(visibilityFor(principals.other.policy, KB, "r")).toBeNull();
    expect(visibilityFor(principals.other.policy, "other", "r")).toEqual({ all: true });
  });

  it("returns frozen values", () => {
    const v = visibilityFor(principals.narrow.policy, KB, "r");
    expect(Object.isFrozen(v)).toBe(true);
    if (v !== null && !v.all) expect(Object.isFrozen(v.rules[0])).toBe(true);
  });

  it("a selector-free rule widens a selector rule to everything (union, no deny)", () => {
    const policy = {
      admin: false,
      rules: [
        { kb: KB, access: "rw" as const, maps: ["infra"], journals: [], types: [] },
        { kb: KB, access: "r" as const, maps: [], journals: [], types: [] },
      ],
    };
    expect(visibilityFor(policy, KB, "r")).toEqual({ all: true });
    expect(visibilityFor(policy, KB, "rw")).toEqual({
      all: false,
      rules: [{ maps: ["infra"], journals: [], types: [] }],
    });
  });
});

describe("metadata gate and whole-KB access", () => {
  it("initialize/tools/list need read access to at least one KB of the endpoint", () => {
    expect(canReadAnyKb(principals.other.policy, [KB])).toBe(false);
    expect(canReadAnyKb(principals.other.policy, [KB, "other"])).toBe(true);
    expect(canReadAnyKb(principals.narrow.policy, [KB])).toBe(true);
    expect(canReadAnyKb(principals.r.policy, [])).toBe(false);
    expect(canReadAnyKb(principals.admin.policy, [])).toBe(true);
    expect(canReadAnyKb(LOCAL_ADMIN.policy, ["anything"])).toBe(true);
  });

  it("whole-KB access needs a selector-free rule of that access", () => {
    expect(hasWholeKb(principals.narrow.policy, KB, "r")).toBe(false);
    expect(hasWholeKb(principals.r.policy, KB, "r")).toBe(true);
    expect(hasWholeKb(principals.r.policy, KB, "rw")).toBe(false);
    expect(hasWholeKb(principals.rw.policy, KB, "r")).toBe(true);
  });
});
