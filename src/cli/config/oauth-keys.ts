/**
 * `auth.oauth` (docs/auth.md "OAuth 2.1 (identity provider)"): the identity provider whose
 * access tokens are accepted beside the static ones. Resolved like every setting (pick.ts);
 * the issuer and audience also take a variable:
 *   auth.oauth.issuer     CARTOGRAPHER_OAUTH_ISSUER     (required to turn OAuth on)
 *   auth.oauth.audience   CARTOGRAPHER_OAUTH_AUDIENCE   (default: <public base>/mcp per request)
 * The other keys are YAML only (`introspection`: introspection-keys.ts). Every error names the
 * key and how to fix it.
 */
import { z } from "zod";
import {
  DEFAULT_ALGORITHMS,
  DEFAULT_CLOCK_SKEW_SECONDS,
  DEFAULT_FETCH_TIMEOUT_MS,
  type OAuthSettings,
} from "../../auth/oauth/types.js";
import { SettingError } from "../../common/errors.js";
import { introspectionSchema, resolveIntrospection } from "./introspection-keys.js";
import { checkSeconds, checkUrl } from "./oauth-values.js";
import type { Settings } from "./pick.js";

/** Asymmetric JWS algorithms only: a shared secret would let anyone holding it mint tokens. */
const ASYMMETRIC = new Set([
  ...["RS256", "RS384", "RS512", "PS256", "PS384", "PS512"],
  ...["ES256", "ES384", "ES512", "EdDSA", "Ed25519"],
]);

const MAX_CLOCK_SKEW_SECONDS = 600;
const MAX_TIMEOUT_SECONDS = 60;

const oauthSchema = z
  .object({
    issuer: z.string().optional(),
    jwks_url: z.string().optional(),
    audience: z.string().optional(),
    algorithms: z.array(z.string()).optional(),
    clock_skew: z.number().optional(),
    principal_claim: z.string().optional(),
    roles_claim: z.string().optional(),
    kb_scopes: z.boolean().optional(),
    scopes: z.array(z.string()).optional(),
    timeout: z.number().optional(),
    introspection: introspectionSchema.optional(),
  })
  .strict();

/** The `oauth` key of a raw `auth:` section, and the section without it (for src/auth). */
export function splitOAuthSection(section: unknown): { auth: unknown; oauth: unknown } {
  if (section === null || typeof section !== "object" || Array.isArray(section))
    return { auth: section, oauth: undefined };
  const { oauth, ...rest } = section as Record<string, unknown>;
  return { auth: rest, oauth };
}

/**
 * The identity-provider settings, or null when no issuer is configured.
 * @throws SettingError naming the key (or variable) and what would be accepted.
 */
export function resolveOAuthSettings(settings: Settings, raw: unknown): OAuthSettings | null {
  const parsed = oauthSchema.safeParse(raw ?? {});
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => {
      const path = ["auth.oauth", ...issue.path.map(String)].join(".");
      const shape =
        issue.path[0] === "introspection" ? introspectionSchema.shape : oauthSchema.shape;
      return issue.code === "unrecognized_keys"
        ? `- ${path}: unknown key ${issue.keys.map((k) => `'${k}'`).join(", ")} (keys: ${Object.keys(shape).join(", ")})`
        : `- ${path}: ${issue.message}`;
    });
    throw new SettingError(`invalid auth.oauth config:\n${lines.join("\n")}`);
  }
  const file = parsed.data;
  const issuer = settings.pick({
    env: "CARTOGRAPHER_OAUTH_ISSUER",
    key: ["auth.oauth.issuer", file.issuer],
  });
  if (issuer === undefined) {
    if (raw !== undefined && raw !== null)
      throw new SettingError(
        "auth.oauth: issuer is not set; give the issuer URL your identity provider publishes (e.g. https://sso.example.com/realms/acme) or remove auth.oauth",
      );
    return null;
  }
  const audience = settings.pick({
    env: "CARTOGRAPHER_OAUTH_AUDIENCE",
    key: ["auth.oauth.audience", file.audience],
  });
  const result: OAuthSettings = {
    issuer: checkUrl(
      issuer.value,
      issuer.source,
      "the issuer URL your identity provider publishes",
    ),
    algorithms: checkAlgorithms(file.algorithms),
    clockSkewSeconds: checkSeconds(
      file.clock_skew,
      "auth.oauth.clock_skew",
      DEFAULT_CLOCK_SKEW_SECONDS,
      MAX_CLOCK_SKEW_SECONDS,
    ),
    principalClaim: checkClaim(file.principal_claim, "auth.oauth.principal_claim") ?? "sub",
    kbScopes: file.kb_scopes ?? true,
    fetchTimeoutMs:
      1000 *
      checkSeconds(
        file.timeout,
        "auth.oauth.timeout",
        DEFAULT_FETCH_TIMEOUT_MS / 1000,
        MAX_TIMEOUT_SECONDS,
      ),
  };
  if (file.jwks_url !== undefined)
    result.jwksUrl = checkUrl(file.jwks_url, "auth.oauth.jwks_url", "the JWKS URL of the issuer");
  if (audience !== undefined) result.audience = audience.value;
  const rolesClaim = checkClaim(file.roles_claim, "auth.oauth.roles_claim");
  if (rolesClaim !== undefined) result.rolesClaim = rolesClaim;
  if (file.scopes !== undefined) result.scopes = checkScopes(file.scopes);
  if (file.introspection !== undefined)
    result.introspection = resolveIntrospection(settings, file.introspection);
  return result;
}

function checkAlgorithms(list: string[] | undefined): string[] {
  if (list === undefined) return [...DEFAULT_ALGORITHMS];
  if (list.length === 0)
    throw new SettingError(
      `auth.oauth.algorithms: is empty; list the algorithms your provider signs with (e.g. [RS256]) or leave the key out`,
    );
  for (const alg of list) {
    if (!ASYMMETRIC.has(alg))
      throw new SettingError(
        `auth.oauth.algorithms: '${alg}' is not accepted; use asymmetric ones (${[...ASYMMETRIC].join(", ")})`,
      );
  }
  return [...new Set(list)];
}

function checkClaim(value: string | undefined, key: string): string | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (trimmed === "" || trimmed.split(".").some((part) => part === ""))
    throw new SettingError(
      `${key}: '${value}' is not a claim name; give one (e.g. sub) or a dotted path (e.g. realm_access.roles)`,
    );
  return trimmed;
}

function checkScopes(list: string[]): string[] {
  const bad = list.findIndex((s) => s.trim() === "" || /\s/.test(s.trim()));
  if (bad !== -1)
    throw new SettingError(
      `auth.oauth.scopes[${bad}]: '${list[bad]}' is not one scope; give one scope per entry, without spaces`,
    );
  return list.map((s) => s.trim());
}
