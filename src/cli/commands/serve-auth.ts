/** Turns the resolved config's auth part into a compiled token store (or auth off). */
import { parseAuthConfig } from "../../auth/config.js";
import { resolveAuthInput } from "../../auth/resolve.js";
import { type CompiledAuth, compileAuth } from "../../auth/tokens.js";
import type { ServerConfig } from "../config/types.js";

export interface ServerAuth {
  compiled: CompiledAuth;
  authorizationServers: string[];
}

export function buildServerAuth(
  config: ServerConfig,
  env: Record<string, string | undefined>,
): ServerAuth {
  const section = parseAuthConfig(config.auth.section ?? {});
  const input = resolveAuthInput(section, {
    env,
    tokens: config.auth.tokens,
    mode: config.auth.mode,
  });
  const kbNames = config.kbs.map((kb) => kb.name);
  return {
    compiled: compileAuth(input, { kbNames }),
    authorizationServers: section.authorization_servers,
  };
}
