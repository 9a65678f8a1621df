/**
 * `auth.oauth` as the operator writes it: parsed and checked in src/cli/config (errors name the
 * key and the fix), carried past src/auth's strict `auth:` schema, and compiled into a verifier
 * that turns auth on by itself; claims become the same principals static tokens yield.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { oauthPrincipalId, principalOfClaims } from "../../../src/auth/oauth/claims.js";
import { DEFAULT_ALGORITHMS } from "../../../src/auth/oauth/types.js";
import { resolveAuthEnabled } from "../../../src/auth/tokens.js";
import { buildServerAuth } from "../../../src/cli/commands/serve-auth.js";
import { resolveOAuthSettings } from "../../../src/cli/config/oauth-keys.js";
import { settingsFrom } from "../../../src/cli/config/pick.js";
import { resolveServerConfig } from "../../../src/cli/config/resolve.js";
import { tempDir } from "../../support/temp-dir.js";
import { oauthSettings } from "./fixture.js";

const ISSUER = "https://sso.example.com/realms/acme";
const resolve = (raw: unknown, env: Record<string, string> = {}) =>
  resolveOAuthSettings(settingsFrom(env), raw);

describe("auth.oauth settings", () => {
  it("applies the documented defaults", () => {
    expect(resolve({ issuer: ISSUER })).toEqual({
      issuer: ISSUER,
      algorithms: [...DEFAULT_ALGORITHMS],
      clockSkewSeconds: 60,
      principalClaim: "sub",
      kbScopes: true,
      fetchTimeoutMs: 5000,
    });
    expect(resolve(undefined)).toBeNull();
  });

  it("takes the issuer and audience from variables over YAML", () => {
    const s = resolve(
      { issuer: "https://ignored.example" },
      { CARTOGRAPHER_OAUTH_ISSUER: ISSUER, CARTOGRAPHER_OAUTH_AUDIENCE: "api://carto" },
    );
    expect(s).toMatchObject({ issuer: ISSUER, audience: "api://carto" });
    expect(resolve(undefined, { CARTOGRAPHER_OAUTH_ISSUER: ISSUER })?.issuer).toBe(ISSUER);
  });

  it("names the key and the fix in every refusal", () => {
    const cases: [unknown, RegExp][] = [
      [{ roles_claim: "groups" }, /auth\.oauth: issuer is not set; give the issuer URL/],
      [{ issuer: "not a url" }, /auth\.oauth\.issuer: 'not a url' is not a URL/],
      [
        { issuer: "http://sso.example.com" },
        /must be an https URL \(http only on a loopback host\)/,
      ],
      [
        { issuer: ISSUER, algorithms: ["HS256"] },
        /auth\.oauth\.algorithms: 'HS256' is not accepted; use asymmetric/,
      ],
      [{ issuer: ISSUER, algorithms: [] }, /auth\.oauth\.algorithms: is empty/],
      [
        { issuer: ISSUER, clock_skew: 9999 },
        /auth\.oauth\.clock_skew: 9999 is out of range; give seconds from 0 to 600/,
      ],
      [
        { issuer: ISSUER, roles_claim: "a..b" },
        /auth\.oauth\.roles_claim: 'a\.\.b' is not a claim name/,
      ],
      [{ issuer: ISSUER, scopes: ["a b"] }, /auth\.oauth\.scopes\[0\]: 'a b' is not one scope/],
      [
        { issuer: ISSUER, audiance: "x" },
        /auth\.oauth: unknown key 'audiance' \(keys: issuer, jwks_url, audience/,
      ],
      [{ issuer: ISSUER, clock_skew: "1m" }, /auth\.oauth\.clock_skew: /],
    ];
    for (const [raw, message] of cases) expect(() => resolve(raw)).toThrow(message);
  });

  it("a YAML auth.oauth passes src/auth's schema and turns auth on without a static token", () => {
    const tmp = tempDir("carto-oauth-");
    try {
      const file = join(tmp.dir, "cartographer.yaml");
      writeFileSync(
        file,
        [
          "auth:",
          "  mode: true",
          "  oauth:",
          `    issuer: ${ISSUER}`,
          "    roles_claim: realm_access.roles",
          "  roles:",
          "    - { name: reader, rules: [{ kb: docs, access: r }] }",
          "",
        ].join("\n"),
      );
      const config = resolveServerConfig({ config: file, kb: [] }, {}, tmp.dir);
      const auth = buildServerAuth(config, {});
      expect(auth.compiled.enabled).toBe(true);
      expect(auth.compiled.store.size).toBe(0);
      expect(auth.oauth?.issuer).toBe(ISSUER);
    } finally {
      tmp.cleanup();
    }
  });

  it("refuses auth.oauth with auth turned off", () => {
    expect(() => resolveAuthEnabled(false, 0, true)).toThrow(
      /auth\.oauth is configured but auth is off .*: remove auth\.oauth or turn auth on/,
    );
    expect(resolveAuthEnabled(true, 0, true)).toBe(true);
  });
});

describe("auth.oauth.introspection settings", () => {
  const SECRET = "s3cr3t-introspection-value";
  const env = { CARTO_RS_SECRET: SECRET };
  const withIntrospection = (introspection: unknown, vars: Record<string, string> = env) =>
    resolve({ issuer: ISSUER, introspection }, vars);

  it("reads the secret from the named variable and applies the defaults", () => {
    expect(
      withIntrospection({ client_id: "carto", client_secret_env: "CARTO_RS_SECRET" })
        ?.introspection,
    ).toEqual({ clientId: "carto", clientSecret: SECRET, cacheSeconds: 60 });
    expect(
      withIntrospection({
        client_id: "carto",
        client_secret_env: "CARTO_RS_SECRET",
        endpoint: "https://sso.example.com/realms/acme/protocol/openid-connect/token/introspect",
        cache_seconds: 0,
      })?.introspection,
    ).toMatchObject({ cacheSeconds: 0, endpoint: expect.stringMatching(/introspect$/) });
    expect(resolve({ issuer: ISSUER })?.introspection).toBeUndefined();
  });

  it("names the key and the fix in every refusal, never quoting a secret", () => {
    const base = { client_id: "carto", client_secret_env: "CARTO_RS_SECRET" };
    const cases: [unknown, RegExp][] = [
      [{ client_secret_env: "CARTO_RS_SECRET" }, /introspection\.client_id: is not set/],
      [{ client_id: "carto" }, /introspection\.client_secret_env: is not set; give the NAME/],
      [{ ...base, client_secret_env: "MISSING_VAR" }, /variable MISSING_VAR is not set; export it/],
      [{ ...base, endpoint: "http://sso.example.com/x" }, /introspection\.endpoint: .* https URL/],
      [{ ...base, cache_seconds: 7200 }, /introspection\.cache_seconds: 7200 is out of range/],
      [
        { ...base, cache_secs: 5 },
        /auth\.oauth\.introspection: unknown key 'cache_secs' \(keys: endpoint, client_id/,
      ],
    ];
    for (const [raw, message] of cases) expect(() => withIntrospection(raw)).toThrow(message);
    // A secret pasted where the variable's name belongs is refused without being echoed.
    let message = "";
    try {
      withIntrospection({ ...base, client_secret_env: "pa$$w0rd with spaces" });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/client_secret_env: is not an environment variable name/);
    expect(message).not.toContain("pa$$w0rd");
  });
});

describe("claims → principal", () => {
  const roles = [
    { name: "reader", rules: [{ kb: "docs", access: "r" as const }] },
    { name: "infra", rules: [{ kb: "docs", access: "rw" as const, maps: ["infra"] }] },
  ];
  const mapping = (extra = {}) => ({
    settings: oauthSettings(ISSUER, { rolesClaim: "realm_access.roles", ...extra }),
    roles,
    kbOf: (n: string) => n,
  });

  it("maps known roles of a dotted claim and kb scopes of scope/scp; ignores the rest", () => {
    const p = principalOfClaims(
      {
        sub: "u-1",
        realm_access: { roles: ["infra", "offline_access"] },
        scope: "openid kb:ops:r",
        scp: ["kb:web:rw", "User.Read"],
      },
      mapping(),
    );
    expect(p?.id).toBe("oauth:sso.example.com:u-1");
    expect(p?.policy.admin).toBe(false);
    expect(p?.policy.rules.map((r) => `${r.kb}:${r.access}:${r.maps.join("/")}`).sort()).toEqual([
      "docs:rw:infra",
      "ops:r:",
      "web:rw:",
    ]);
  });

  it("never makes an admin, honours kb_scopes: false, and needs the principal claim", () => {
    const bare = principalOfClaims({ sub: "u-2" }, mapping());
    expect(bare?.policy).toEqual({ admin: false, rules: [] });
    const noScopes = principalOfClaims(
      { sub: "u-3", scope: "kb:ops:rw" },
      mapping({ kbScopes: false }),
    );
    expect(noScopes?.policy.rules).toEqual([]);
    expect(principalOfClaims({ email: "x@y" }, mapping())).toBeNull();
    expect(principalOfClaims({ oid: "o-1" }, mapping({ principalClaim: "oid" }))?.id).toBe(
      "oauth:sso.example.com:o-1",
    );
    expect(oauthPrincipalId("http://127.0.0.1:8080/realm", "s")).toBe("oauth:127.0.0.1:8080:s");
  });
});
