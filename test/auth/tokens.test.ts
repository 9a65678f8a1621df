/** Token store (D44/D45/D118): digests only, constant-time lookup, derived ids, frozen policies. */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  compileAuth,
  derivedPrincipalId,
  generateToken,
  resolveAuthEnabled,
  scopesSupported,
  TokenStore,
} from "../../src/auth/tokens.js";
import { isSettingError } from "../../src/common/errors.js";

const roles = [
  {
    name: "ops",
    rules: [{ kb: "docs", access: "rw" as const, maps: ["infra"], types: ["runbook"] }],
  },
];

describe("authenticate", () => {
  const { store } = compileAuth({
    mode: "auto",
    roles,
    tokens: [
      { token: "alpha-token", id: "alpha" },
      { token: "beta" },
      { token: "gamma-token-long", scopes: ["kb:docs:r"] },
    ],
  });

  it("finds the principal of an equal token", () => {
    expect(store.authenticate("alpha-token")?.id).toBe("alpha");
    expect(store.authenticate("gamma-token-long")?.policy.rules).toHaveLength(1);
  });

  it("rejects unequal tokens of the same, shorter and longer length, and the empty string", () => {
    for (const bearer of ["alpha-tokeN", "alpha", "alpha-token-and-more", "", "beta "]) {
      expect(store.authenticate(bearer)).toBeNull();
    }
  });

  it("keeps no token value: only the digest reaches the store", () => {
    const entries = [
      {
        digest: createHash("sha256").update("s3cret").digest(),
        principal: { id: "p", policy: { admin: true, rules: [] } },
      },
    ];
    const bare = new TokenStore(entries);
    expect(bare.authenticate("s3cret")?.id).toBe("p");
    expect(JSON.stringify(bare)).not.toContain("s3cret");
    expect(Object.keys(bare)).toEqual([]);
    expect(store.principalIds()).toEqual([
      "alpha",
      derivedPrincipalId("beta"),
      derivedPrincipalId("gamma-token-long"),
    ]);
  });
});

describe("principals and policies", () => {
  const { principals } = compileAuth({
    mode: "auto",
    roles,
    tokens: [
      { token: "admin-tok" },
      { token: "scoped", scopes: ["kb:docs:r", "kb:docs:r"], roles: ["ops"] },
    ],
  });
  const [admin, scoped] = principals;

  it("derives tok- + the first 8 hex of the sha256 when no id is configured", () => {
    const hex = createHash("sha256").update("admin-tok").digest("hex");
    expect(admin?.id).toBe(`tok-${hex.slice(0, 8)}`);
    expect(admin?.id).toMatch(/^tok-[0-9a-f]{8}$/);
  });

  it("a token with neither scopes nor roles is admin; scopes and roles union (duplicates folded)", () => {
    expect(admin?.policy).toEqual({ admin: true, rules: [] });
    expect(scoped?.policy.admin).toBe(false);
    expect(scoped?.policy.rules).toEqual([
      { kb: "docs", access: "r", maps: [], journals: [], types: [] },
      { kb: "docs", access: "rw", maps: ["infra"], journals: [], types: ["runbook"] },
    ]);
  });

  it("policies are deeply frozen", () => {
    const policy = scoped?.policy;
    expect(Object.isFrozen(scoped)).toBe(true);
    expect(Object.isFrozen(policy)).toBe(true);
    expect(Object.isFrozen(policy?.rules)).toBe(true);
    for (const rule of policy?.rules ?? []) {
      expect(Object.isFrozen(rule)).toBe(true);
      expect(Object.isFrozen(rule.maps)).toBe(true);
      expect(Object.isFrozen(rule.journals)).toBe(true);
      expect(Object.isFrozen(rule.types)).toBe(true);
    }
    expect(() => ((scoped?.policy.rules as unknown[] | undefined) ?? []).push({})).toThrow(
      TypeError,
    );
  });

  it("a later change to the config objects does not reach a compiled policy", () => {
    const mutableRoles = [
      { name: "r", rules: [{ kb: "docs", access: "r" as const, maps: ["infra"] }] },
    ];
    const compiled = compileAuth({
      mode: "auto",
      roles: mutableRoles,
      tokens: [{ token: "x", roles: ["r"] }],
    });
    mutableRoles[0]?.rules[0]?.maps.push("apps");
    expect(compiled.principals[0]?.policy.rules[0]?.maps).toEqual(["infra"]);
  });
});

describe("auth mode", () => {
  it("auto is on exactly when tokens exist; false is off; true requires tokens", () => {
    expect(resolveAuthEnabled("auto", 0)).toBe(false);
    expect(resolveAuthEnabled("auto", 2)).toBe(true);
    expect(resolveAuthEnabled(false, 2)).toBe(false);
    expect(resolveAuthEnabled(true, 1)).toBe(true);
    expect(() => resolveAuthEnabled(true, 0)).toThrow(/no tokens are configured/);
    expect(compileAuth({ mode: false, roles: [], tokens: [{ token: "t" }] }).enabled).toBe(false);
    try {
      compileAuth({ mode: true, roles: [], tokens: [] });
      expect.unreachable();
    } catch (err) {
      expect(isSettingError(err)).toBe(true);
    }
  });
});

describe("generateToken and scopes", () => {
  it("makes distinct cart_ base64url tokens whose principal id authenticates", () => {
    const a = generateToken();
    const b = generateToken();
    expect(a.token).toMatch(/^cart_[A-Za-z0-9_-]{43}$/);
    expect(a.token).not.toBe(b.token);
    expect(a.principalId).toBe(derivedPrincipalId(a.token));
    const { store } = compileAuth({ mode: "auto", roles: [], tokens: [{ token: a.token }] });
    expect(store.authenticate(a.token)?.id).toBe(a.principalId);
  });

  it("lists kb:<name>:r and kb:<name>:rw for every KB", () => {
    expect(scopesSupported(["docs", "ops"])).toEqual([
      "kb:docs:r",
      "kb:docs:rw",
      "kb:ops:r",
      "kb:ops:rw",
    ]);
    expect(scopesSupported([])).toEqual([]);
  });
});

describe("scopes bind to the mounted KB names (case kept; another case only when unambiguous)", () => {
  const kbs = (names: string[]) =>
    compileAuth(
      {
        mode: "auto",
        roles: [{ name: "reader", rules: [{ kb: "KBB", access: "r" as const }] }],
        tokens: [
          { token: "t-exact", scopes: ["kb:kbA:rw"] },
          { token: "t-folded", scopes: ["kb:kba:r"], roles: ["reader"] },
        ],
      },
      { kbNames: names },
    ).store;

  it("kb:kbA:rw names kbA as written; kb:kba:r and a role's KBB find kbA / kbB", () => {
    const store = kbs(["kbA", "kbB"]);
    expect(store.authenticate("t-exact")?.policy.rules.map((r) => r.kb)).toEqual(["kbA"]);
    expect(store.authenticate("t-folded")?.policy.rules.map((r) => r.kb)).toEqual(["kbA", "kbB"]);
  });

  it("two KBs differing only in case: a scope binds only to its exact name", () => {
    const store = kbs(["kbA", "KBA", "kbB"]);
    expect(store.authenticate("t-folded")?.policy.rules.map((r) => r.kb)).toEqual(["kba", "kbB"]);
  });
});
