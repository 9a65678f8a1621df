/**
 * Which path a bearer takes (docs/decisions.md "OAuth: one header, two paths" and "OAuth: an
 * opaque bearer is a static token first, then introspected"): a JWT whose `iss` is the
 * configured issuer is verified as an OAuth access token and only so; anything else is looked
 * up among the static tokens; with introspection configured, a non-JWT bearer the static store
 * does not know is asked about at the identity provider. A JWT from another issuer thus meets
 * the static store, which does not know it, and is never sent to the provider.
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
  const { oauth } = paths;
  if (oauth?.claimsOurIssuer(bearer)) {
    const verdict = await oauth.verify(bearer, audiences);
    return verdict.ok ? verdict.principal : null;
  }
  const known = paths.tokens?.authenticate(bearer) ?? null;
  if (known !== null || !oauth?.introspects(bearer)) return known;
  const verdict = await oauth.introspect(bearer, audiences);
  return verdict.ok ? verdict.principal : null;
}
