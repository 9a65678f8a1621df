/**
 * A real OpenID provider (oidc-provider) on 127.0.0.1 for the OAuth tests: JWT access tokens
 * for RFC 8707 resources, a public PKCE client for the MCP SDK's authorization-code flow whose
 * login and consent this module answers itself (no browser), confidential clients for
 * client_credentials, a `groups` claim per account or client, and key rotation. Access tokens
 * can be switched to opaque ones (`format`), which a confidential resource-server client
 * introspects (RFC 7662, counted) and their own client revokes (RFC 7009).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, type JWK, SignJWT } from "jose";
import Provider from "oidc-provider";

/** The scope clients ask for (auth.oauth.scopes in the tests). */
export const MCP_SCOPE = "mcp";
export const CLI_CLIENT = "mcp-cli";
export const REDIRECT_URI = "http://127.0.0.1/callback";
/** The confidential client the resource server introspects as (client_secret_basic). */
export const RS_CLIENT = "cartographer-rs";
export const RS_SECRET = "cartographer-rs-secret";
export const INTROSPECTION_PATH = "/token/introspection";

/** Who is who: accounts sign in through the code flow, clients use client_credentials. */
export const GROUPS: Record<string, string[]> = {
  alice: ["alpha-notes", "unrelated-group"],
  "svc-role": ["alpha-notes"],
  "svc-none": ["unrelated-group"],
};

export interface TestIdp {
  issuer: string;
  /** The account the next authorization-code login signs in as. */
  loginAs: string;
  /** The format of the access tokens issued from now on. */
  format: "jwt" | "opaque";
  /** Lifetime in seconds of the access tokens issued from now on. */
  accessTokenTTL: number;
  /** Introspection requests the provider has received. */
  introspections: number;
  /** Revokes `token` (RFC 7009) as its own public client. */
  revoke(token: string): Promise<void>;
  /** A client_credentials access token of `clientId` for `resource`. */
  clientToken(clientId: string, resource: string): Promise<string>;
  /** A token signed with the provider's current key, any claims and `typ` (null: none). */
  mint(claims: Record<string, unknown>, typ?: string | null): Promise<string>;
  /** A new signing key; the old one leaves the JWKS. Tokens are signed with the new one. */
  rotate(): Promise<void>;
  /** The authorization URL's flow, followed in code: login, consent, redirect. The code. */
  authorize(url: URL): Promise<string>;
  close(): Promise<void>;
}

interface SigningKey {
  jwk: JWK;
  privateKey: CryptoKey;
}

async function newKey(kid: string): Promise<SigningKey> {
  const { privateKey } = await generateKeyPair("RS256", { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), kid, alg: "RS256", use: "sig" };
  return { jwk, privateKey: privateKey as CryptoKey };
}

export async function startIdp(): Promise<TestIdp> {
  let key = await newKey("k1");
  let server: Server | null = null;
  let provider: ReturnType<typeof makeProvider> | null = null;
  let issuer = "";

  function makeProvider(iss: string, signing: SigningKey) {
    const p = new Provider(iss, {
      jwks: { keys: [signing.jwk] },
      clients: [
        {
          client_id: CLI_CLIENT,
          application_type: "native",
          token_endpoint_auth_method: "none",
          grant_types: ["authorization_code"],
          response_types: ["code"],
          redirect_uris: [REDIRECT_URI],
        },
        {
          client_id: RS_CLIENT,
          client_secret: RS_SECRET,
          grant_types: [],
          response_types: [],
          redirect_uris: [],
        },
        ...["svc-role", "svc-none"].map((id) => ({
          client_id: id,
          client_secret: `${id}-secret`,
          grant_types: ["client_credentials"],
          response_types: [],
          redirect_uris: [],
        })),
      ],
      cookies: { keys: ["test-cookie-key"] },
      // Set, so the provider does not print a notice per artifact kind.
      ttl: {
        Interaction: 600,
        Session: 600,
        Grant: 600,
        AccessToken: () => idp.accessTokenTTL,
        ClientCredentials: () => idp.accessTokenTTL,
      },
      findAccount: (_ctx: unknown, id: string) => ({
        accountId: id,
        claims: async () => ({ sub: id }),
      }),
      extraTokenClaims: (_ctx: unknown, token: { accountId?: string; clientId?: string }) => ({
        groups: GROUPS[token.accountId ?? token.clientId ?? ""] ?? [],
      }),
      interactions: { url: (_ctx: unknown, i: { uid: string }) => `/interaction/${i.uid}` },
      features: {
        devInteractions: { enabled: false },
        clientCredentials: { enabled: true },
        // Only the resource server may introspect; a client revokes only its own tokens.
        introspection: {
          enabled: true,
          allowedPolicy: (_ctx: unknown, client: { clientId: string }) =>
            client.clientId === RS_CLIENT,
        },
        revocation: {
          enabled: true,
          allowedPolicy: (
            _ctx: unknown,
            client: { clientId: string },
            token: { clientId: string },
          ) => token.clientId === client.clientId,
        },
        resourceIndicators: {
          enabled: true,
          defaultResource: (_ctx: unknown, _client: unknown, oneOf?: string) => oneOf,
          useGrantedResource: () => true,
          getResourceServerInfo: (_ctx: unknown, resource: string) => ({
            scope: MCP_SCOPE,
            audience: resource,
            accessTokenTTL: idp.accessTokenTTL,
            accessTokenFormat: idp.format,
            jwt: { sign: { alg: "RS256" } },
          }),
        },
      },
    });
    p.on("server_error", (_ctx: unknown, err: Error) => console.error("idp:", err));
    return p;
  }

  async function listen(port: number): Promise<number> {
    const s = createServer((req, res) => {
      if (req.method === "POST" && req.url === INTROSPECTION_PATH) idp.introspections++;
      if (req.url?.startsWith("/interaction/")) void interact(req, res);
      else provider?.callback()(req, res);
    });
    await new Promise<void>((resolve) => s.listen(port, "127.0.0.1", resolve));
    server = s;
    return (s.address() as AddressInfo).port;
  }

  const idp: TestIdp = {
    issuer: "",
    loginAs: "alice",
    format: "jwt",
    accessTokenTTL: 300,
    introspections: 0,
    async revoke(token) {
      const res = await fetch(`${issuer}/token/revocation`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ token, client_id: CLI_CLIENT }),
      });
      if (res.status !== 200) throw new Error(`revocation: ${res.status} ${await res.text()}`);
    },
    async clientToken(clientId, resource) {
      const res = await fetch(`${issuer}/token`, {
        method: "POST",
        headers: {
          authorization: `Basic ${Buffer.from(`${clientId}:${clientId}-secret`).toString("base64")}`,
          "content-type": "application/x-www-form-urlencoded",
        },
        body: new URLSearchParams({ grant_type: "client_credentials", resource, scope: MCP_SCOPE }),
      });
      const body = (await res.json()) as { access_token?: string };
      if (!body.access_token) throw new Error(`token endpoint: ${JSON.stringify(body)}`);
      return body.access_token;
    },
    mint: (claims, typ = "at+jwt") =>
      new SignJWT(claims)
        .setProtectedHeader({
          alg: "RS256",
          kid: key.jwk.kid as string,
          ...(typ === null ? {} : { typ }),
        })
        .sign(key.privateKey),
    async rotate() {
      const port = new URL(issuer).port;
      await new Promise((resolve) => server?.close(resolve));
      key = await newKey(`k${Date.now()}`);
      provider = makeProvider(issuer, key);
      await listen(Number(port));
    },
    authorize: (url) => followAuthorization(url),
    close: () => new Promise((resolve) => server?.close(() => resolve())),
  };

  /** Login as `idp.loginAs`, then consent to whatever the client asked for. */
  async function interact(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      const details = await provider.interactionDetails(req, res);
      const prompt = details.prompt as { name: string; details: Record<string, unknown> };
      if (prompt.name === "login") {
        await provider.interactionFinished(req, res, { login: { accountId: idp.loginAs } });
        return;
      }
      const grant = details.grantId
        ? await provider.Grant.find(details.grantId)
        : new provider.Grant({
            accountId: details.session.accountId,
            clientId: details.params.client_id,
          });
      const missing = prompt.details;
      if (Array.isArray(missing.missingOIDCScope))
        grant.addOIDCScope(missing.missingOIDCScope.join(" "));
      if (Array.isArray(missing.missingOIDCClaims)) grant.addOIDCClaims(missing.missingOIDCClaims);
      for (const [resource, scopes] of Object.entries(
        (missing.missingResourceScopes ?? {}) as Record<string, string[]>,
      ))
        grant.addResourceScope(resource, scopes.join(" "));
      const grantId = await grant.save();
      await provider.interactionFinished(req, res, { consent: { grantId } });
    } catch (err) {
      res.statusCode = 500;
      res.end(String(err));
    }
  }

  /** Follows redirects by hand with a cookie jar until one points at the redirect URI. */
  async function followAuthorization(start: URL): Promise<string> {
    const jar = new Map<string, string>();
    let next = start.href;
    for (let hop = 0; hop < 12; hop++) {
      if (next.startsWith(REDIRECT_URI)) {
        const back = new URL(next);
        const code = back.searchParams.get("code");
        if (code === null) throw new Error(`authorization refused: ${back.search}`);
        return code;
      }
      const res = await fetch(next, {
        redirect: "manual",
        headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join("; ") },
      });
      for (const line of res.headers.getSetCookie()) {
        const [pair] = line.split(";");
        const at = (pair ?? "").indexOf("=");
        if (at > 0) jar.set((pair as string).slice(0, at), (pair as string).slice(at + 1));
      }
      const location = res.headers.get("location");
      if (location === null)
        throw new Error(`no redirect from ${next}: ${res.status} ${await res.text()}`);
      next = new URL(location, next).href;
    }
    throw new Error("too many redirects in the authorization flow");
  }

  const port = await listen(0);
  issuer = `http://127.0.0.1:${port}`;
  provider = makeProvider(issuer, key);
  idp.issuer = issuer;
  return idp;
}
