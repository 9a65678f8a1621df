/**
 * The OAuth test fixture: the authz KBs (test/authz/setup.ts: map alpha holds what the
 * `alpha-notes` role sees), a real Cartographer HTTP server taking static tokens and the test
 * identity provider's access tokens, and an SDK OAuthClientProvider whose redirect the test
 * follows in code.
 */
import { randomUUID } from "node:crypto";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import { DEFAULT_ALGORITHMS, type OAuthSettings } from "../../../src/auth/oauth/types.js";
import { createOAuthVerifier } from "../../../src/auth/oauth/verifier.js";
import { compileAuth } from "../../../src/auth/tokens.js";
import { memoryLogger } from "../../../src/logger.js";
import type { MountedKb } from "../../../src/runtime/mount.js";
import { ROLE, seedMain } from "../../authz/setup.js";
import { serveMounts } from "../../http/helpers.js";
import { MemoryAudit, type TempMounts, tempMounts } from "../../support/mcp-kit.js";
import { CLI_CLIENT, MCP_SCOPE, REDIRECT_URI, type TestIdp } from "./idp.js";

export const ADMIN = "oauth-suite-admin-token";
export const ROLE_TOKEN = "oauth-suite-role-token";

export function oauthSettings(issuer: string, extra: Partial<OAuthSettings> = {}): OAuthSettings {
  return {
    issuer,
    algorithms: [...DEFAULT_ALGORITHMS],
    clockSkewSeconds: 5,
    principalClaim: "sub",
    rolesClaim: "groups",
    kbScopes: true,
    scopes: [MCP_SCOPE],
    fetchTimeoutMs: 2_000,
    ...extra,
  };
}

/** KBs main (seeded) and other, static tokens admin and role, OAuth from `issuer`. */
export async function startOAuthServer(settings: OAuthSettings | null) {
  const kbs: TempMounts = await tempMounts(["main", "other"], { artifacts: ["main"] });
  await seedMain(kbs.byName.main as MountedKb);
  const compiled = compileAuth(
    {
      mode: true,
      roles: [ROLE],
      tokens: [
        { token: ADMIN, id: "admin" },
        { token: ROLE_TOKEN, id: "role", roles: [ROLE.name] },
      ],
    },
    { oauth: settings !== null },
  );
  const logger = memoryLogger();
  const audit = new MemoryAudit();
  // Cooldown 0 so the rotation test sees a new key at once (production: 30 s).
  const oauth =
    settings === null
      ? undefined
      : createOAuthVerifier(settings, { roles: [ROLE], logger, jwksCooldownMs: 0 });
  const server = await serveMounts(kbs.mounts, {
    logger,
    audit,
    auth: { tokens: compiled.store, ...(oauth ? { oauth } : {}) },
  });
  return {
    server,
    logger,
    audit,
    close: async () => {
      await server.close();
      await kbs.cleanup();
    },
  };
}

/** The MCP SDK's client side of OAuth: a pre-registered public client, state in memory. */
export class TestOAuthClient implements OAuthClientProvider {
  saved: OAuthTokens | undefined;
  verifier = "";
  /** The URL the SDK would open in a browser. */
  pending: URL | null = null;
  readonly redirectUrl = REDIRECT_URI;
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "cartographer oauth test",
      redirect_uris: [REDIRECT_URI],
      grant_types: ["authorization_code"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  state(): string {
    return randomUUID();
  }
  clientInformation(): OAuthClientInformationMixed {
    return { client_id: CLI_CLIENT };
  }
  tokens(): OAuthTokens | undefined {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens): void {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL): void {
    this.pending = url;
  }
  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }
  codeVerifier(): string {
    return this.verifier;
  }
}

/**
 * The SDK's whole flow against `serverUrl` + `path`: 401 → metadata → authorize (followed in
 * code at `idp`) → token → a connected Client, and the provider holding the token.
 */
export async function sdkSignIn(
  idp: TestIdp,
  serverUrl: string,
  path: string,
): Promise<{ client: Client; provider: TestOAuthClient }> {
  const provider = new TestOAuthClient();
  const url = new URL(`${serverUrl}${path}`);
  const first = new StreamableHTTPClientTransport(url, { authProvider: provider });
  try {
    await new Client({ name: "oauth-test", version: "1" }).connect(first);
    throw new Error("the server accepted a client without a token");
  } catch (err) {
    if (!/Unauthorized/.test(String(err))) throw err;
  }
  await first.finishAuth(await idp.authorize(provider.pending as URL));
  const client = new Client({ name: "oauth-test", version: "1" });
  await client.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }));
  return { client, provider };
}
