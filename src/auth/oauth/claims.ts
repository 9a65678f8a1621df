/**
 * Verified access-token claims → the same Principal a static token yields (docs/auth.md "OAuth
 * 2.1 (identity provider)"). Roles named in the roles claim are looked up in `auth.roles`; names
 * with no role there are ignored (an IdP's group list holds much besides). `kb:<name>:r|rw`
 * entries of `scope` (RFC 9068, space-separated) or `scp` (Entra string, Okta array) grant
 * their KB when `kb_scopes` is on. A token never becomes admin: granting nothing grants nothing.
 */
import type { RoleSpec } from "../config-types.js";
import { parseScope } from "../scopes.js";
import { compilePolicy } from "../tokens.js";
import type { Principal } from "../types.js";
import type { OAuthSettings } from "./types.js";

export interface ClaimMapping {
  settings: OAuthSettings;
  roles: readonly RoleSpec[];
  /** Binds a KB name written in another case to the mounted KB (kb/core/kb-name.ts). */
  kbOf: (name: string) => string;
}

/**
 * `oauth:<issuer host>:<principal claim>`: stable across restarts and key rotation, and two
 * issuers' users cannot collide with each other or with a static token's id.
 */
export function oauthPrincipalId(issuer: string, subject: string): string {
  return `oauth:${new URL(issuer).host}:${subject}`;
}

/** The principal of verified `claims`, or null when the principal claim is missing or empty. */
export function principalOfClaims(
  claims: Readonly<Record<string, unknown>>,
  mapping: ClaimMapping,
): Principal | null {
  const { settings } = mapping;
  const subject = claims[settings.principalClaim];
  if (typeof subject !== "string" || subject === "") return null;
  const known = new Set(mapping.roles.map((r) => r.name.trim()));
  const roles =
    settings.rolesClaim === undefined
      ? []
      : namesIn(claimAt(claims, settings.rolesClaim)).filter((name) => known.has(name));
  const scopes = settings.kbScopes
    ? [...namesIn(claims.scope), ...namesIn(claims.scp)]
        .map((text) => parseScope(text))
        .flatMap((scope) => (scope === null ? [] : [`kb:${scope.kb}:${scope.access}`]))
    : [];
  const byName = new Map(mapping.roles.map((r) => [r.name.trim(), r]));
  // Both lists present (maybe empty): compilePolicy reads "neither" as admin.
  const policy = compilePolicy({ scopes, roles }, byName, mapping.kbOf);
  return Object.freeze({ id: oauthPrincipalId(settings.issuer, subject), policy });
}

/** The value at a dotted claim path (`realm_access.roles`), or undefined. */
function claimAt(claims: Readonly<Record<string, unknown>>, path: string): unknown {
  let here: unknown = claims;
  for (const part of path.split(".")) {
    if (here === null || typeof here !== "object" || Array.isArray(here)) return undefined;
    here = (here as Record<string, unknown>)[part];
  }
  return here;
}

/** Names in a claim: an array's strings, or a space-separated string's words. */
function namesIn(value: unknown): string[] {
  if (typeof value === "string") return value.split(/\s+/).filter((s) => s !== "");
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === "string");
  return [];
}
