/**
 * Whether an RFC 7662 introspection answer admits its token (docs/auth.md "Opaque tokens (RFC
 * 7662 introspection)"). Pure. The checks, in order:
 *   not a JSON object, or `active` is not `true`     → refused (RFC 7662 §2.2)
 *   `iss` present and not the configured issuer        → refused
 *   `token_type` present and `refresh_token`            → refused
 *   `exp` present and passed (give or take clock skew)  → refused
 *   `nbf` present and ahead (give or take clock skew)   → refused
 *   `aud` present and naming none of the audiences      → refused (audienceAccepted)
 * `exp`, `nbf` and `aud` are optional in RFC 7662; the provider vouches for the token now.
 */

export interface AnswerRules {
  issuer: string;
  clockSkewSeconds: number;
  /** Epoch seconds. */
  nowSeconds: number;
}

export type CheckedAnswer =
  | {
      ok: true;
      claims: Readonly<Record<string, unknown>>;
      /** `aud` as a list; null when the answer has none. */
      audiences: string[] | null;
      /** `exp` in epoch seconds; null when the answer has none. */
      exp: number | null;
    }
  | { ok: false; reason: string };

export function checkIntrospectionAnswer(body: unknown, rules: AnswerRules): CheckedAnswer {
  if (body === null || typeof body !== "object" || Array.isArray(body))
    return refused("the introspection answer is not a JSON object");
  const claims = body as Record<string, unknown>;
  if (claims.active !== true) return refused("the token is not active (introspection)");
  if (claims.iss !== undefined && claims.iss !== rules.issuer)
    return refused(`introspection names issuer ${JSON.stringify(claims.iss)}, not ${rules.issuer}`);
  if (typeof claims.token_type === "string" && claims.token_type.toLowerCase() === "refresh_token")
    return refused("a refresh token is not an access token");
  const exp = numericClaim(claims, "exp");
  const nbf = numericClaim(claims, "nbf");
  if (exp === "bad" || nbf === "bad") return refused("exp or nbf is not a number of seconds");
  if (exp !== undefined && exp + rules.clockSkewSeconds <= rules.nowSeconds)
    return refused('"exp" claim timestamp check failed (introspection)');
  if (nbf !== undefined && nbf - rules.clockSkewSeconds > rules.nowSeconds)
    return refused('"nbf" claim timestamp check failed (introspection)');
  const audiences = audienceList(claims.aud);
  if (audiences === "bad") return refused("aud is neither a string nor a list of strings");
  return { ok: true, claims, audiences, exp: exp ?? null };
}

/** True when the answer had no `aud`, or its `aud` names one of `accepted`. */
export function audienceAccepted(
  audiences: readonly string[] | null,
  accepted: readonly string[],
): boolean {
  return audiences === null || audiences.some((aud) => accepted.includes(aud));
}

function refused(reason: string): CheckedAnswer {
  return { ok: false, reason };
}

function numericClaim(claims: Record<string, unknown>, name: string): number | undefined | "bad" {
  const value = claims[name];
  if (value === undefined) return undefined;
  return typeof value === "number" && Number.isFinite(value) ? value : "bad";
}

function audienceList(value: unknown): string[] | null | "bad" {
  if (value === undefined) return null;
  if (typeof value === "string") return [value];
  if (Array.isArray(value) && value.every((v) => typeof v === "string")) return value;
  return "bad";
}
