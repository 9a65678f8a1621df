/**
 * Access-token validation (docs/auth.md "OAuth 2.1 (identity provider)"): a JWT from the
 * configured issuer, signed by a key of its JWKS (jose: cached, refetched when a token names a
 * key it does not hold, so a rotation at the provider is picked up), with `iss`, `aud`, `exp`
 * (required), `nbf` and `typ` checked; with `auth.oauth.introspection`, an opaque bearer is
 * asked about at the provider instead (introspection.ts). Fail closed: a discovery, JWKS or
 * introspection failure refuses the token. The token is never logged, stored or passed on;
 * refusals log the reason only.
 */
import {
  createRemoteJWKSet,
  decodeJwt,
  type JWTVerifyGetKey,
  jwtVerify,
  type ProtectedHeaderParameters,
} from "jose";
import type { Logger } from "../../logger.js";
import type { RoleSpec } from "../config-types.js";
import { principalOfClaims } from "./claims.js";
import { cachedJwksUri } from "./discovery.js";
import { createIntrospector } from "./introspection.js";
import type { OAuthSettings, Verdict } from "./types.js";

export type { Verdict } from "./types.js";

/** `typ` values accepted (RFC 9068 §2.1 `at+jwt`, and the `JWT` most IdPs still send). */
const ACCEPTED_TYP = new Set(["at+jwt", "application/at+jwt", "jwt"]);

/** A JWS compact serialization: header.payload.signature, base64url (RFC 7515 §7.1). */
const JWS_COMPACT = /^[\w-]+\.[\w-]+\.[\w-]*$/;

/** Least time between two JWKS fetches caused by an unknown `kid` (jose's cooldown). */
export const DEFAULT_JWKS_COOLDOWN_MS = 30_000;

export interface OAuthVerifier {
  readonly issuer: string;
  readonly settings: OAuthSettings;
  /** True when `bearer` is a JWT whose (unverified) `iss` is the configured issuer. */
  claimsOurIssuer(bearer: string): boolean;
  /** Verifies `bearer` for one of `audiences` (used unless `audience` is configured). */
  verify(bearer: string, audiences: readonly string[]): Promise<Verdict>;
  /** True when introspection is configured and `bearer` is not a JWS (three base64url parts). */
  introspects(bearer: string): boolean;
  /** Introspects `bearer` for one of `audiences`; refuses when introspection is not configured. */
  introspect(bearer: string, audiences: readonly string[]): Promise<Verdict>;
}

export interface VerifierOptions {
  roles: readonly RoleSpec[];
  kbOf?: (name: string) => string;
  logger?: Logger;
  /** Tests shorten it to watch a key rotation; see DEFAULT_JWKS_COOLDOWN_MS. */
  jwksCooldownMs?: number;
  /** Epoch ms for the introspection cache; tests move it. */
  now?: () => number;
}

export function createOAuthVerifier(settings: OAuthSettings, opts: VerifierOptions): OAuthVerifier {
  const jwksUri =
    settings.jwksUrl === undefined
      ? cachedJwksUri(settings.issuer, settings.fetchTimeoutMs)
      : () => Promise.resolve(settings.jwksUrl as string);
  let keys: { uri: string; get: JWTVerifyGetKey } | null = null;
  const getKey: JWTVerifyGetKey = async (header, token) => {
    const uri = await jwksUri();
    if (keys === null || keys.uri !== uri) {
      keys = {
        uri,
        get: createRemoteJWKSet(new URL(uri), {
          timeoutDuration: settings.fetchTimeoutMs,
          cooldownDuration: opts.jwksCooldownMs ?? DEFAULT_JWKS_COOLDOWN_MS,
        }),
      };
    }
    return keys.get(header, token);
  };
  const mapping = { settings, roles: opts.roles, kbOf: opts.kbOf ?? ((name: string) => name) };
  const introspector =
    settings.introspection === undefined
      ? null
      : createIntrospector(settings, settings.introspection, {
          mapping,
          ...(opts.logger ? { logger: opts.logger } : {}),
          ...(opts.now ? { now: opts.now } : {}),
        });

  async function verify(bearer: string, audiences: readonly string[]): Promise<Verdict> {
    try {
      const { payload, protectedHeader } = await jwtVerify(bearer, getKey, {
        issuer: settings.issuer,
        audience: settings.audience ?? [...audiences],
        algorithms: settings.algorithms,
        clockTolerance: settings.clockSkewSeconds,
        requiredClaims: ["exp"],
      });
      if (!typAccepted(protectedHeader)) {
        return refuse(`typ ${JSON.stringify(protectedHeader.typ)} is not at+jwt or JWT`);
      }
      const principal = principalOfClaims(payload as Record<string, unknown>, mapping);
      if (principal === null) return refuse(`claim ${settings.principalClaim} is missing`);
      return { ok: true, principal };
    } catch (err) {
      const error = err as Error & { code?: string };
      if (error.name === "OAuthDiscoveryError" || error.code === "ERR_JWKS_TIMEOUT") {
        opts.logger?.error(`oauth: ${error.message}`);
      }
      return refuse(error.message);
    }
  }

  function refuse(reason: string): Verdict {
    opts.logger?.info(`oauth: access token refused: ${reason}`);
    return { ok: false, reason };
  }

  return {
    issuer: settings.issuer,
    settings,
    claimsOurIssuer: (bearer) => unverifiedIssuer(bearer) === settings.issuer,
    verify,
    introspects: (bearer) => introspector !== null && !JWS_COMPACT.test(bearer),
    introspect: (bearer, audiences) =>
      introspector === null
        ? Promise.resolve(refuse("introspection is not configured"))
        : introspector.introspect(bearer, audiences),
  };
}

function typAccepted(header: ProtectedHeaderParameters): boolean {
  return typeof header.typ === "string" && ACCEPTED_TYP.has(header.typ.toLowerCase());
}

/** The `iss` of a JWT-shaped bearer, unverified (routing only), or null. */
function unverifiedIssuer(bearer: string): string | null {
  if (bearer.split(".").length !== 3) return null;
  try {
    const iss = decodeJwt(bearer).iss;
    return typeof iss === "string" ? iss : null;
  } catch {
    return null;
  }
}
