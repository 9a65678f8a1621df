/**
 * Turns the resolved config's auth part into a compiled token store and, with `auth.oauth`, an
 * access-token verifier (or auth off).
 */
import { parseAuthConfig } from "../../auth/config.js";
import { createOAuthVerifier, type OAuthVerifier } from "../../auth/oauth/verifier.js";
import { resolveAuthInput } from "../../auth/resolve.js";
import { type CompiledAuth, compileAuth } from "../../auth/tokens.js";
import { resolveKbName } from "../../kb/core/kb-name.js";
import type { Logger } from "../../logger.js";
import type { ServerConfig } from "../config/types.js";

export interface ServerAuth {
  compiled: CompiledAuth;
  authorizationServers: string[];
  /** Absent without `auth.oauth`. It fetches nothing until the first OAuth token arrives. */
  oauth?: OAuthVerifier;
}

export function buildServerAuth(
  config: ServerConfig,
  env: Record<string, string | undefined>,
  logger?: Logger,
): ServerAuth {
  const section = parseAuthConfig(config.auth.section ?? {});
  const input = resolveAuthInput(section, {
    env,
    tokens: config.auth.tokens,
    mode: config.auth.mode,
  });
  const kbNames = config.kbs.map((kb) => kb.name);
  const oauthSettings = config.auth.oauth;
  const compiled = compileAuth(input, { kbNames, oauth: oauthSettings !== undefined });
  if (oauthSettings === undefined)
    return { compiled, authorizationServers: section.authorization_servers };
  const oauth = createOAuthVerifier(oauthSettings, {
    roles: input.roles,
    kbOf: (name) => resolveKbName(name, kbNames) ?? name,
    ...(logger ? { logger } : {}),
  });
  return { compiled, authorizationServers: section.authorization_servers, oauth };
}
