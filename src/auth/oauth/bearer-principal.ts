/**
 * Which path a bearer takes (docs/decisions.md "OAuth: one header, two paths"): a JWT whose
 * `iss` is the configured issuer is verified as an OAuth access token and only so; anything
 * else is looked up among the static tokens. A JWT from another issuer thus meets the static
 * store, which does not know it.
 */
import type { TokenStore } from "../tokens.js";
import type { Principal } from "../types.js";
import type { OAuthVerifier } from "./verifier.js";

export interface BearerPaths {
  tokens: TokenStore | null;
  oauth?: OAuthVerifier;
}

/** The principal `bearer` authenticates as, or null (→ 401). */
export async function principalOfBearer(
  bearer: string,
  paths: BearerPaths,
  audiences: readonly string[],
): Promise<Principal | null> {
  if (paths.oauth?.claimsOurIssuer(bearer)) {
    const verdict = await paths.oauth.verify(bearer, audiences);
    return verdict.ok ? verdict.principal : null;
  }
  return paths.tokens?.authenticate(bearer) ?? null;
}
