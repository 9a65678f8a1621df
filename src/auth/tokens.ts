/**
 * Bearer tokens → principals (D44, D45, D118). Token values live only as sha256 digests; lookup
 * compares against every digest in constant time. Policies compile once, deep-frozen.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { SettingError } from "../common/errors.js";
import { resolveKbName } from "../kb/core/kb-name.js";
import { roleProblems, tokenLabel, tokenProblems } from "./checks.js";
import type { AuthMode, ResolvedAuthInput, RoleSpec, TokenSpec } from "./config-types.js";
import { parseScope } from "./scopes.js";
import type { PermissionRule, Policy, Principal } from "./types.js";

export { scopesSupported } from "./scopes.js";

export interface TokenEntry {
  /** sha256 of the token's UTF-8 bytes (32 bytes). */
  digest: Uint8Array;
  principal: Principal;
}

export class TokenStore {
  readonly #entries: readonly TokenEntry[];

  constructor(entries: readonly TokenEntry[]) {
    this.#entries = Object.freeze(
      entries.map((e) => Object.freeze({ digest: Buffer.from(e.digest), principal: e.principal })),
    );
  }

  get size(): number {
    return this.#entries.length;
  }

  /**
   * The principal whose token is `bearer`, or null. Every stored digest is compared with
   * crypto.timingSafeEqual, with no early exit, so timing does not depend on which entry (if
   * any) matches; hashing first makes every comparison the same length whatever the input.
   */
  authenticate(bearer: string): Principal | null {
    const digest = tokenDigest(bearer);
    let found: Principal | null = null;
    for (const entry of this.#entries) {
      const equal = timingSafeEqual(entry.digest, digest);
      found = equal && found === null ? entry.principal : found;
    }
    return found;
  }

  /** Principal ids in declaration order (for startup logs and /health counts; never tokens). */
  principalIds(): string[] {
    return this.#entries.map((e) => e.principal.id);
  }
}

export interface CompiledAuth {
  store: TokenStore;
  /** Whether HTTP requires a bearer (mode resolution: auto = on when tokens exist). */
  enabled: boolean;
  principals: readonly Principal[];
}

export function tokenDigest(token: string): Buffer {
  return createHash("sha256").update(token, "utf8").digest();
}

/** `tok-` + the first 8 hex of the token's sha256: stable, and reveals nothing usable. */
export function derivedPrincipalId(token: string): string {
  return `tok-${tokenDigest(token).toString("hex").slice(0, 8)}`;
}

/**
 * Auth on/off: `auto` = on when tokens exist or an identity provider is configured
 * (`auth.oauth`); `true` = on and one of them is required; `false` = off.
 * @throws SettingError when mode is true and there is neither; when mode is false beside
 *   `auth.oauth` (an identity provider nobody is asked to use is a mistake, not a choice).
 */
export function resolveAuthEnabled(mode: AuthMode, tokenCount: number, oauth = false): boolean {
  if (mode === false && oauth) {
    throw new SettingError(
      "auth.oauth is configured but auth is off (auth.mode / CARTOGRAPHER_AUTH = false): remove auth.oauth or turn auth on",
    );
  }
  if (mode === false) return false;
  if (mode === true && tokenCount === 0 && !oauth) {
    throw new SettingError(
      "auth is required (auth.mode / CARTOGRAPHER_AUTH = true) but no tokens are configured: add auth.tokens, set CARTOGRAPHER_TOKENS or configure auth.oauth",
    );
  }
  return tokenCount > 0 || oauth;
}

/**
 * Validates the whole auth input (roles, tokens, duplicate ids including derived ones) and
 * builds the token store. Roles and scopes union into one policy per token; a token with neither
 * is admin. With `kbNames` (the mounted KBs), a rule naming a KB in another case binds to the
 * one KB that matches it ignoring case (kb/kb-name.ts); an exact name always wins.
 * @throws SettingError listing every problem, naming roles and token ids/positions.
 */
export function compileAuth(
  input: ResolvedAuthInput,
  opts: { kbNames?: readonly string[]; oauth?: boolean } = {},
): CompiledAuth {
  const kbOf = (name: string) =>
    opts.kbNames === undefined ? name : (resolveKbName(name, opts.kbNames) ?? name);
  const roleNames = new Set(input.roles.map((r) => r.name.trim()));
  const problems = [...roleProblems(input.roles), ...tokenProblems(input.tokens, roleNames)];
  const principals = input.tokens.map((spec, index) => ({
    id: spec.id ?? derivedPrincipalId(spec.token),
    label: tokenLabel(spec, index),
  }));
  problems.push(...duplicateProblems(input.tokens, principals));
  if (problems.length > 0) {
    throw new SettingError(`invalid auth config:\n${problems.map((p) => `- ${p}`).join("\n")}`);
  }
  const roles = new Map(input.roles.map((r) => [r.name.trim(), r]));
  const entries = input.tokens.map((spec, index) => ({
    digest: tokenDigest(spec.token),
    principal: Object.freeze({
      id: principals[index]?.id ?? "",
      policy: compilePolicy(spec, roles, kbOf),
    }),
  }));
  const store = new TokenStore(entries);
  return {
    store,
    enabled: resolveAuthEnabled(input.mode, entries.length, opts.oauth === true),
    principals: Object.freeze(entries.map((e) => e.principal)),
  };
}

/** Two entries with the same value, or two principals with the same (configured or derived) id. */
function duplicateProblems(
  tokens: readonly TokenSpec[],
  ids: { id: string; label: string }[],
): string[] {
  const problems: string[] = [];
  const byDigest = new Map<string, string>();
  const byId = new Map<string, { label: string; configured: boolean }>();
  tokens.forEach((spec, index) => {
    const here = ids[index];
    if (here === undefined) return;
    const hex = tokenDigest(spec.token).toString("hex");
    const sameValue = byDigest.get(hex);
    if (sameValue !== undefined)
      problems.push(`${here.label}: has the same token value as ${sameValue}`);
    else byDigest.set(hex, here.label);
    const configured = spec.id !== undefined;
    const sameId = byId.get(here.id);
    // Two configured ids clashing are already reported by tokenProblems; same values just above.
    const reported = sameValue !== undefined || (configured && sameId?.configured === true);
    if (sameId !== undefined && !reported) {
      problems.push(`${here.label}: principal id "${here.id}" is already used by ${sameId.label}`);
    }
    if (sameId === undefined) byId.set(here.id, { label: here.label, configured });
  });
  return problems;
}

/**
 * The policy of what a token holds: its scopes and the rules of its roles, unioned; neither
 * given = admin. OAuth principals (auth/oauth/claims.ts) are compiled here too, so a role means
 * the same whichever way the caller authenticated.
 */
export function compilePolicy(
  spec: Pick<TokenSpec, "scopes" | "roles">,
  roles: ReadonlyMap<string, RoleSpec>,
  kbOf: (name: string) => string,
): Policy {
  if (spec.scopes === undefined && spec.roles === undefined) {
    return Object.freeze({ admin: true, rules: Object.freeze([]) });
  }
  const rules: PermissionRule[] = [];
  for (const text of spec.scopes ?? []) {
    const scope = parseScope(text);
    if (scope !== null)
      rules.push(
        freezeRule({ kb: kbOf(scope.kb), access: scope.access, maps: [], journals: [], types: [] }),
      );
  }
  for (const name of spec.roles ?? []) {
    for (const rule of roles.get(name)?.rules ?? []) {
      rules.push(
        freezeRule({
          kb: kbOf(rule.kb),
          access: rule.access,
          maps: rule.maps ?? [],
          journals: rule.journals ?? [],
          types: rule.types ?? [],
        }),
      );
    }
  }
  return Object.freeze({ admin: false, rules: Object.freeze(dedupe(rules)) });
}

function freezeRule(rule: PermissionRule): PermissionRule {
  return Object.freeze({
    kb: rule.kb,
    access: rule.access,
    maps: Object.freeze([...new Set(rule.maps)]),
    journals: Object.freeze([...new Set(rule.journals)]),
    types: Object.freeze([...new Set(rule.types)]),
  });
}

function dedupe(rules: PermissionRule[]): PermissionRule[] {
  const seen = new Set<string>();
  return rules.filter((rule) => {
    const key = JSON.stringify([rule.kb, rule.access, rule.maps, rule.journals, rule.types]);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** A fresh random token (`cart_` + 32 random bytes, base64url) and its derived principal id. */
export function generateToken(): { token: string; principalId: string } {
  const token = `cart_${randomBytes(32).toString("base64url")}`;
  return { token, principalId: derivedPrincipalId(token) };
}
