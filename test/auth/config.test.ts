/** Auth config validation (D118): each refused case names the role or token, never the token. */
import { describe, expect, it } from "vitest";
import { authConfigSchema, parseAuthConfig } from "../../src/auth/config.js";
import type { ResolvedAuthInput } from "../../src/auth/config-types.js";
import { compileAuth } from "../../src/auth/tokens.js";
import { isSettingError } from "../../src/common/errors.js";

/** `${NAME}` written without a template-looking literal. */
const ref = (name: string): string => ["$", "{", name, "}"].join("");

const CANARY = "CANARY-tok-9f3e2a";

function configError(raw: unknown): string {
  try {
    parseAuthConfig(raw);
  } catch (err) {
    expect(isSettingError(err)).toBe(true);
    return (err as Error).message;
  }
  throw new Error("config was accepted");
}

function compileError(input: Partial<ResolvedAuthInput>): string {
  try {
    compileAuth({ mode: "auto", tokens: [], roles: [], ...input });
  } catch (err) {
    expect(isSettingError(err)).toBe(true);
    return (err as Error).message;
  }
  throw new Error("input was accepted");
}

const rule = { kb: "docs", access: "r" };

const refused: { name: string; raw: unknown; mentions: string[] }[] = [
  {
    name: "duplicate role",
    raw: {
      roles: [
        { name: "ops", rules: [rule] },
        { name: "ops", rules: [rule] },
      ],
      tokens: [CANARY],
    },
    mentions: ['role "ops"', "more than once"],
  },
  {
    name: "duplicate principal id",
    raw: {
      tokens: [
        { token: CANARY, id: "ci" },
        { token: `${CANARY}-2`, id: "ci" },
      ],
    },
    mentions: ['principal id "ci"', "auth.tokens[0]", "auth.tokens[1]"],
  },
  {
    name: "unknown role",
    raw: { tokens: [{ token: CANARY, id: "ci", roles: ["ghost"] }] },
    mentions: ['token "ci"', 'unknown role "ghost"'],
  },
  {
    name: "empty kb",
    raw: { roles: [{ name: "ops", rules: [{ kb: " ", access: "r" }] }] },
    mentions: ['role "ops" rule 1', "kb is empty"],
  },
  {
    name: "access other than r/rw",
    raw: { roles: [{ name: "ops", rules: [rule, { kb: "docs", access: "write" }] }] },
    mentions: ['role "ops" rule 2', 'access must be "r" or "rw"'],
  },
  {
    name: "empty selector",
    raw: { roles: [{ name: "ops", rules: [{ ...rule, maps: [""] }] }] },
    mentions: ['role "ops" rule 1', "maps[0] is empty"],
  },
  {
    name: "path-like selector with /",
    raw: { roles: [{ name: "ops", rules: [{ ...rule, journals: ["a/b"] }] }] },
    mentions: ['role "ops"', "journals[0]", "path-like"],
  },
  {
    name: "path-like selector with ..",
    raw: { roles: [{ name: "ops", rules: [{ ...rule, types: [".."] }] }] },
    mentions: ['role "ops"', "types[0]", "path-like"],
  },
  {
    name: "a name declared both as map and journal in one role",
    raw: {
      roles: [
        {
          name: "ops",
          rules: [
            { ...rule, maps: ["log"] },
            { ...rule, journals: ["log"] },
          ],
        },
      ],
    },
    mentions: ['role "ops"', '"log" is declared both as a map and as a journal'],
  },
  {
    name: "malformed scope",
    raw: { tokens: [{ token: CANARY, scopes: ["kb:docs:write"] }] },
    mentions: ["token auth.tokens[0]", "scope 1", "kb:<name>:r"],
  },
  {
    name: "explicit empty grants (would otherwise read as admin)",
    raw: { tokens: [{ token: CANARY, id: "x", scopes: [] }] },
    mentions: ['token "x"', "omit both for an admin token"],
  },
  {
    name: "empty token value",
    raw: { tokens: ["  "] },
    mentions: ["auth.tokens[0]", "token value is empty"],
  },
  {
    name: "unknown key (typo)",
    raw: { token: [CANARY] },
    mentions: ["token"],
  },
];

describe("auth config validation", () => {
  for (const c of refused) {
    it(`refuses ${c.name}, naming it, without the token value`, () => {
      const message = configError(c.raw);
      for (const m of c.mentions) expect(message).toContain(m);
      expect(message).not.toContain(CANARY);
    });
  }

  it("accepts the documented example and applies defaults", () => {
    const parsed = authConfigSchema.parse({
      tokens: [
        `${ref("ADMIN")}`,
        { token: `${ref("CI")}`, id: "ci", scopes: ["kb:docs:r"], roles: ["ops"] },
      ],
      roles: [
        { name: "ops", rules: [{ kb: "docs", access: "rw", maps: ["infra"], types: ["runbook"] }] },
      ],
      authorization_servers: ["https://issuer.example"],
    });
    expect(parsed.mode).toBe("auto");
    expect(parsed.tokens[0]).toEqual({ token: `${ref("ADMIN")}`, origin: "auth.tokens[0]" });
    expect(parsed.tokens[1]?.roles).toEqual(["ops"]);
    expect(parseAuthConfig(undefined)).toEqual({
      mode: "auto",
      tokens: [],
      roles: [],
      authorization_servers: [],
    });
  });

  it("reports every problem at once", () => {
    const message = configError({
      roles: [{ name: "a", rules: [{ kb: "", access: "x" }] }],
      tokens: [{ token: CANARY, roles: ["b"] }],
    });
    expect(message).toContain("kb is empty");
    expect(message).toContain("access must be");
    expect(message).toContain('unknown role "b"');
  });
});

describe("compileAuth validation (env tokens included)", () => {
  it("refuses two tokens with the same value, naming positions only", () => {
    const message = compileError({
      tokens: [
        { token: CANARY, origin: "CARTOGRAPHER_TOKENS entry 1" },
        { token: CANARY, origin: "CARTOGRAPHER_TOKENS entry 2", scopes: ["kb:a:r"] },
      ],
    });
    expect(message).toContain(
      "CARTOGRAPHER_TOKENS entry 2: has the same token value as token CARTOGRAPHER_TOKENS entry 1",
    );
    expect(message).not.toContain(CANARY);
  });

  it("refuses a configured id equal to another token's derived id", () => {
    const derived =
      compileAuth({ mode: "auto", roles: [], tokens: [{ token: CANARY }] }).principals[0]?.id ?? "";
    const message = compileError({ tokens: [{ token: CANARY }, { token: "other", id: derived }] });
    expect(message).toContain(`principal id "${derived}" is already used`);
    expect(message).not.toContain(CANARY);
  });

  it("re-runs the role checks (an unknown role from the env/flag path)", () => {
    expect(compileError({ tokens: [{ token: CANARY, roles: ["nope"] }] })).toContain(
      'unknown role "nope"',
    );
  });
});
