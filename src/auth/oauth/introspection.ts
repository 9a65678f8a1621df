/**
 * Opaque access tokens, asked about at the identity provider (RFC 7662; docs/auth.md "Opaque
 * tokens (RFC 7662 introspection)"): one POST of the token alone to the introspection endpoint,
 * the resource server authenticating with client_secret_basic (§2.1), timed out like every
 * provider fetch. Fail closed: an endpoint that is down, slow, answers non-200 or not JSON
 * refuses the token (logged as an error); an inactive or mismatching answer refuses it (info).
 * Active answers are cached by the token's digest (introspection-cache.ts); the token itself is
 * never logged, stored or sent anywhere else.
 */

import { FORM_URLENCODED } from "../../common/media-types.js";
import type { Logger } from "../../logger.js";
import { ProviderAnswerError, readCappedJson } from "./capped-json.js";
import { type ClaimMapping, principalOfClaims } from "./claims.js";
import { cachedEndpoint } from "./discovery.js";
import { audienceAccepted, checkIntrospectionAnswer } from "./introspection-answer.js";
import { type CachedAnswer, cacheKey, IntrospectionCache } from "./introspection-cache.js";
import {
  INTROSPECTION_CACHE_ENTRIES,
  type IntrospectionSettings,
  type OAuthSettings,
  type Verdict,
} from "./types.js";

export class IntrospectionError extends Error {
  override readonly name = "IntrospectionError";
}

export interface IntrospectorDeps {
  mapping: ClaimMapping;
  logger?: Logger;
  /** Epoch ms; tests move it. */
  now?: () => number;
}

export interface Introspector {
  /** Asks the provider about `token` (or reuses its cached answer) for one of `audiences`. */
  introspect(token: string, audiences: readonly string[]): Promise<Verdict>;
}

export function createIntrospector(
  settings: OAuthSettings,
  introspection: IntrospectionSettings,
  deps: IntrospectorDeps,
): Introspector {
  const now = deps.now ?? Date.now;
  const endpoint =
    introspection.endpoint === undefined
      ? cachedEndpoint(settings.issuer, settings.fetchTimeoutMs, "introspection_endpoint")
      : () => Promise.resolve(introspection.endpoint as string);
  const cache = new IntrospectionCache(INTROSPECTION_CACHE_ENTRIES);
  // One provider call per token at a time: concurrent requests with it share the answer.
  const pending = new Map<string, Promise<CachedAnswer | string>>();

  async function lookUp(token: string): Promise<CachedAnswer | string> {
    const body = await post(await endpoint(), token, introspection, settings.fetchTimeoutMs);
    const checked = checkIntrospectionAnswer(body, {
      issuer: settings.issuer,
      clockSkewSeconds: settings.clockSkewSeconds,
      nowSeconds: Math.floor(now() / 1000),
    });
    if (!checked.ok) return checked.reason;
    const principal = principalOfClaims(checked.claims, deps.mapping);
    if (principal === null) return `claim ${settings.principalClaim} is missing`;
    const until = now() + introspection.cacheSeconds * 1000;
    const expiresAt = checked.exp === null ? until : Math.min(until, checked.exp * 1000);
    return { principal, audiences: checked.audiences, expiresAt };
  }

  async function answerFor(key: string, token: string): Promise<CachedAnswer | string> {
    const cached = cache.get(key, now());
    if (cached !== undefined) return cached;
    const inFlight = pending.get(key);
    if (inFlight !== undefined) return inFlight;
    const asked = lookUp(token)
      .then((answer) => {
        if (typeof answer !== "string" && answer.expiresAt > now()) cache.set(key, answer);
        return answer;
      })
      .finally(() => pending.delete(key));
    pending.set(key, asked);
    return asked;
  }

  return {
    async introspect(token, audiences) {
      try {
        const answer = await answerFor(cacheKey(token), token);
        if (typeof answer === "string") return refuse(answer);
        const accepted = settings.audience === undefined ? audiences : [settings.audience];
        if (!audienceAccepted(answer.audiences, accepted))
          return refuse('unexpected "aud" claim value (introspection)');
        return { ok: true, principal: answer.principal };
      } catch (err) {
        const reason = failureOf(err as Error);
        deps.logger?.error(`oauth: introspection failed, the opaque token is refused: ${reason}`);
        return { ok: false, reason };
      }
    },
  };

  function refuse(reason: string): Verdict {
    deps.logger?.info(`oauth: access token refused: ${reason}`);
    return { ok: false, reason };
  }
}

/**
 * POSTs `token` to `endpoint` and returns the parsed answer.
 * @throws IntrospectionError (or the fetch's own error) on a timeout, a non-200, an answer over
 * the cap or non-JSON.
 */
async function post(
  endpoint: string,
  token: string,
  client: IntrospectionSettings,
  timeoutMs: number,
): Promise<unknown> {
  const response = await fetch(endpoint, {
    method: "POST",
    signal: AbortSignal.timeout(timeoutMs),
    redirect: "error",
    headers: {
      authorization: basicAuthorization(client.clientId, client.clientSecret),
      "content-type": FORM_URLENCODED,
      accept: "application/json",
    },
    body: new URLSearchParams({ token, token_type_hint: "access_token" }).toString(),
  });
  if (response.status !== 200) {
    await response.body?.cancel();
    throw new IntrospectionError(`${endpoint} answered HTTP ${response.status}`);
  }
  try {
    return await readCappedJson(response, endpoint);
  } catch (err) {
    throw err instanceof ProviderAnswerError ? new IntrospectionError(err.message) : err;
  }
}

/** A fetch failure's message with its cause (`fetch failed: connect ECONNREFUSED …`). */
function failureOf(err: Error): string {
  const cause = (err as Error & { cause?: unknown }).cause;
  return cause instanceof Error ? `${err.message}: ${cause.message}` : err.message;
}

/** RFC 6749 §2.3.1: id and secret form-encoded, then joined and base64-encoded. */
function basicAuthorization(clientId: string, secret: string): string {
  const encode = (s: string) => new URLSearchParams({ s }).toString().slice(2);
  return `Basic ${Buffer.from(`${encode(clientId)}:${encode(secret)}`).toString("base64")}`;
}
