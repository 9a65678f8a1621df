/**
 * The OAuth 2.1 resource-server settings (docs/auth.md "OAuth 2.1 (identity provider)"): what
 * src/cli/config resolves from `auth.oauth` and what the verifier is built from. Types only.
 */

/** JWS algorithms accepted when `auth.oauth.algorithms` is not set (asymmetric only). */
export const DEFAULT_ALGORITHMS = ["RS256", "PS256", "ES256", "EdDSA"] as const;

/** Seconds of clock difference tolerated on `exp`/`nbf` when `auth.oauth.clock_skew` is not set. */
export const DEFAULT_CLOCK_SKEW_SECONDS = 60;

/** Every network call to the identity provider (discovery, JWKS) gives up after this long. */
export const DEFAULT_FETCH_TIMEOUT_MS = 5_000;

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
  /** Discovery and JWKS fetch timeout. */
  fetchTimeoutMs: number;
}
