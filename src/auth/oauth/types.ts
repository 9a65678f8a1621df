/**
 * The OAuth 2.1 resource-server settings (docs/auth.md "OAuth 2.1 (identity provider)"): what
 * src/cli/config resolves from `auth.oauth` and what the verifier is built from. Types only.
 */
import type { Principal } from "../types.js";

/** What checking one access token comes to: its principal, or the reason it is refused. */
export type Verdict = { ok: true; principal: Principal } | { ok: false; reason: string };

/** JWS algorithms accepted when `auth.oauth.algorithms` is not set (asymmetric only). */
export const DEFAULT_ALGORITHMS = ["RS256", "PS256", "ES256", "EdDSA"] as const;

/** Seconds of clock difference tolerated on `exp`/`nbf` when `auth.oauth.clock_skew` is not set. */
export const DEFAULT_CLOCK_SKEW_SECONDS = 60;

/** Every network call to the identity provider (discovery, JWKS) gives up after this long. */
export const DEFAULT_FETCH_TIMEOUT_MS = 5_000;

/** Seconds a positive introspection answer is reused when `cache_seconds` is not set. */
export const DEFAULT_INTROSPECTION_CACHE_SECONDS = 60;

/** Most introspection answers held at once; the oldest is dropped first. */
export const INTROSPECTION_CACHE_ENTRIES = 10_000;

/**
 * RFC 7662 introspection of opaque access tokens (docs/auth.md "Opaque tokens (RFC 7662
 * introspection)"). The secret is the value of the variable `client_secret_env` names, read by
 * the CLI; it is sent only to the endpoint and never logged.
 */
export interface IntrospectionSettings {
  /** Absent = `introspection_endpoint` from the issuer's metadata. */
  endpoint?: string;
  clientId: string;
  clientSecret: string;
  /** How long an active answer is reused (never past the token's `exp`); 0 = never. */
  cacheSeconds: number;
}

export interface OAuthSettings {
  /** The `iss` every accepted token carries; also the advertised authorization server. */
  issuer: string;
  /** The JWKS; absent = `jwks_uri` from the issuer's RFC 8414 / OpenID Connect metadata. */
  jwksUrl?: string;
  /**
   * The `aud` a token must carry; absent = the canonical resource URL of the request
   * (`<public base>/mcp`, or the path called), RFC 8707.
   */
  audience?: string;
  algorithms: string[];
  clockSkewSeconds: number;
  /** Claim naming the user; the principal id is `oauth:<issuer host>:<value>`. */
  principalClaim: string;
  /** Claim (dotted path, e.g. `realm_access.roles`) whose names are looked up in `auth.roles`. */
  rolesClaim?: string;
  /** Whether `kb:<name>:r|rw` entries of the `scope`/`scp` claim grant their KB. */
  kbScopes: boolean;
  /** Scopes a client should ask for (RFC 9728 `scopes_supported`, the 401's `scope`). */
  scopes?: string[];
  /** Discovery, JWKS and introspection fetch timeout. */
  fetchTimeoutMs: number;
  /** Absent = opaque bearers are not sent anywhere (only JWTs are OAuth tokens). */
  introspection?: IntrospectionSettings;
}
