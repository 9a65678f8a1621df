/** The env/flag forms: CARTOGRAPHER_TOKENS, CARTOGRAPHER_AUTH and ${ENV} references. */
import { describe, expect, it } from "vitest";
import { parseAuthConfig } from "../../src/auth/config.js";
import { expandEnvRefs } from "../../src/auth/env-refs.js";
import { parseAuthMode, resolveAuthInput } from "../../src/auth/resolve.js";
import { compileAuth } from "../../src/auth/tokens.js";
import { parseTokensEnv } from "../../src/auth/tokens-env.js";

/** `${NAME}` written without a template-looking literal. */
const ref = (name: string): string => ["$", "{", name, "}"].join("");

const SECRET = "sEcReT-value-42";

function errorOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error("no error");
}

describe("parseTokensEnv", () => {
  it("parses tok|kb:a:rw;kb:b:r,tok2 (scoped, then admin)", () => {
    expect(parseTokensEnv(" tok|kb:a:rw; kb:b:r , tok2 ")).toEqual([
      { token: "tok", scopes: ["kb:a:rw", "kb:b:r"], origin: "CARTOGRAPHER_TOKENS entry 1" },
      { token: "tok2", origin: "CARTOGRAPHER_TOKENS entry 2" },
    ]);
  });

  it("blank means no tokens", () => {
    expect(parseTokensEnv("   ")).toEqual([]);
  });

  const malformed: [string, string, RegExp][] = [
    ["empty entry", `${SECRET},,x`, /CARTOGRAPHER_TOKENS entry 2 is empty/],
    ["bar without scopes", `${SECRET}|`, /entry 1 has "\|" but no scopes/],
    ["bad access", `${SECRET}|kb:a:w`, /entry 1, scope 1: expected kb:<name>:r or kb:<name>:rw/],
    ["missing kb prefix", `x,${SECRET}|kb:a:r;${SECRET}`, /entry 2, scope 2: expected/],
    ["empty kb name", `${SECRET}|kb::r`, /entry 1, scope 1/],
    ["empty token", `|kb:a:r`, /entry 1: token value is empty/],
    ["token with a space", `${SECRET} x|kb:a:r`, /entry 1: token value contains whitespace/],
  ];
  for (const [name, value, pattern] of malformed) {
    it(`refuses ${name} with a clear error that echoes nothing`, () => {
      const message = errorOf(() => parseTokensEnv(value));
      expect(message).toMatch(pattern);
      expect(message).not.toContain(SECRET);
    });
  }

  it("names the flag when the value came from --tokens", () => {
    expect(errorOf(() => parseTokensEnv("a,,b", "--tokens"))).toContain("--tokens entry 2");
  });

  it("env tokens compile: scoped one is limited, bare one is admin", () => {
    const { store } = compileAuth({
      mode: "auto",
      roles: [],
      tokens: parseTokensEnv("tok|kb:a:rw,tok2"),
    });
    expect(store.authenticate("tok")?.policy.rules).toEqual([
      { kb: "a", access: "rw", maps: [], journals: [], types: [] },
    ]);
    expect(store.authenticate("tok2")?.policy.admin).toBe(true);
  });
});

describe("expandEnvRefs", () => {
  const env = { CI_TOKEN: SECRET, EMPTY: "" };

  it(`substitutes ${ref("NAME")} and leaves other text alone`, () => {
    expect(expandEnvRefs(`${ref("CI_TOKEN")}`, env)).toBe(SECRET);
    expect(expandEnvRefs(`pre-${ref("CI_TOKEN")}-post`, env)).toBe(`pre-${SECRET}-post`);
    expect(expandEnvRefs("plain$value", env)).toBe("plain$value");
  });

  it("refuses unset or empty variables and bad names, naming the variable and the place", () => {
    expect(errorOf(() => expandEnvRefs(`${ref("MISSING")}`, env, "auth.tokens[1]"))).toBe(
      `auth.tokens[1]: environment variable MISSING is not set (referenced as ${ref("MISSING")})`,
    );
    expect(errorOf(() => expandEnvRefs(`x${ref("EMPTY")}`, env))).toContain("EMPTY is not set");
    expect(errorOf(() => expandEnvRefs(`${ref("1BAD")}`, env))).toContain(
      "environment variable name",
    );
  });
});

describe("parseAuthMode and resolveAuthInput", () => {
  it("reads auto/true/false spellings and refuses others without echoing them", () => {
    expect(parseAuthMode("")).toBe("auto");
    expect(parseAuthMode("AUTO")).toBe("auto");
    expect(parseAuthMode("true")).toBe(true);
    expect(parseAuthMode("0")).toBe(false);
    expect(errorOf(() => parseAuthMode(SECRET))).toBe(
      "CARTOGRAPHER_AUTH must be auto, true or false",
    );
  });

  it(`env tokens replace YAML tokens; YAML ${ref("ENV")} values are expanded otherwise`, () => {
    const config = parseAuthConfig({
      mode: true,
      tokens: [{ token: `${ref("CI_TOKEN")}`, id: "ci" }],
    });
    const fromYaml = resolveAuthInput(config, { env: { CI_TOKEN: SECRET } });
    expect(fromYaml.tokens).toEqual([{ token: SECRET, id: "ci", origin: "auth.tokens[0]" }]);
    expect(fromYaml.mode).toBe(true);
    const fromEnv = resolveAuthInput(config, {
      env: {},
      tokens: { value: "a|kb:x:r", source: "CARTOGRAPHER_TOKENS" },
      mode: { value: "false", source: "CARTOGRAPHER_AUTH" },
    });
    expect(fromEnv.tokens.map((t) => t.token)).toEqual(["a"]);
    expect(fromEnv.mode).toBe(false);
  });
});
