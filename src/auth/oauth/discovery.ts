/**
 * Where the issuer's signing keys (`jwks_uri`) and introspection endpoint
 * (`introspection_endpoint`, RFC 7662 via RFC 8414 §2) are: read from its RFC 8414
 * authorization-server metadata, else its OpenID Connect discovery document. Fail closed: no
 * answer in time, a non-2xx, a document for another issuer or without the field is an error,
 * and the caller denies.
 */
import { ProviderAnswerError, readCappedJson } from "./capped-json.js";

/** After a failed discovery, requests are denied without a new fetch for this long. */
export const DISCOVERY_RETRY_MS = 10_000;

export class OAuthDiscoveryError extends Error {
  override readonly name = "OAuthDiscoveryError";
}

/** The metadata URLs to try for `issuer`, in order (RFC 8414 §3.1, then OIDC Discovery §4). */
export function metadataUrls(issuer: string): string[] {
  const url = new URL(issuer);
  const path = url.pathname.replace(/\/$/, "");
  return [
    `${url.origin}/.well-known/oauth-authorization-server${path}`,
    `${url.origin}${path}/.well-known/openid-configuration`,
  ];
}

/** Fetches `url` as JSON, giving up after `timeoutMs` or past the answer cap (capped-json.ts). */
export async function fetchJson(url: string, timeoutMs: number): Promise<unknown> {
  const response = await fetch(url, {
    signal: AbortSignal.timeout(timeoutMs),
    headers: { accept: "application/json" },
    redirect: "error",
  });
  if (!response.ok) {
    await response.body?.cancel();
    throw new OAuthDiscoveryError(`${url} answered HTTP ${response.status}`);
  }
  try {
    return await readCappedJson(response, url);
  } catch (err) {
    throw err instanceof ProviderAnswerError ? new OAuthDiscoveryError(err.message) : err;
  }
}

/** The metadata fields read, each with the key that replaces discovery for it. */
const OVERRIDES = {
  jwks_uri: "auth.oauth.jwks_url",
  introspection_endpoint: "auth.oauth.introspection.endpoint",
} as const;

export type MetadataEndpoint = keyof typeof OVERRIDES;

/**
 * The URL the issuer publishes under `field`.
 * @throws OAuthDiscoveryError naming every URL tried and why it did not do.
 */
export async function discoverEndpoint(
  issuer: string,
  timeoutMs: number,
  field: MetadataEndpoint,
): Promise<string> {
  const failures: string[] = [];
  for (const url of metadataUrls(issuer)) {
    try {
      const doc = (await fetchJson(url, timeoutMs)) as Record<string, unknown>;
      // RFC 8414 §3.3: a document naming another issuer must not be used.
      if (doc.issuer !== issuer) {
        failures.push(`${url}: names issuer ${JSON.stringify(doc.issuer)}, not ${issuer}`);
        continue;
      }
      const value = doc[field];
      if (typeof value !== "string" || value === "") {
        failures.push(`${url}: has no ${field} (set ${OVERRIDES[field]})`);
        continue;
      }
      return value;
    } catch (err) {
      failures.push(`${url}: ${(err as Error).message}`);
    }
  }
  throw new OAuthDiscoveryError(
    `discovery of ${issuer} failed (every OAuth token is refused until it succeeds):\n- ${failures.join("\n- ")}`,
  );
}

/** The `jwks_uri` the issuer publishes (discoverEndpoint). */
export function discoverJwksUri(issuer: string, timeoutMs: number): Promise<string> {
  return discoverEndpoint(issuer, timeoutMs, "jwks_uri");
}

/**
 * discoverEndpoint once, remembered; a failure is remembered for DISCOVERY_RETRY_MS, so an
 * identity-provider outage is not turned into one fetch per request.
 */
export function cachedEndpoint(
  issuer: string,
  timeoutMs: number,
  field: MetadataEndpoint,
  now: () => number = Date.now,
): () => Promise<string> {
  let found: Promise<string> | null = null;
  let failedAt = 0;
  let failure: Error | null = null;
  return () => {
    if (failure !== null && now() - failedAt < DISCOVERY_RETRY_MS) return Promise.reject(failure);
    if (found === null) {
      found = discoverEndpoint(issuer, timeoutMs, field).then(
        (uri) => {
          failure = null;
          return uri;
        },
        (err: Error) => {
          found = null;
          failure = err;
          failedAt = now();
          throw err;
        },
      );
    }
    return found;
  };
}

/** cachedEndpoint for `jwks_uri`. */
export function cachedJwksUri(
  issuer: string,
  timeoutMs: number,
  now: () => number = Date.now,
): () => Promise<string> {
  return cachedEndpoint(issuer, timeoutMs, "jwks_uri", now);
}
