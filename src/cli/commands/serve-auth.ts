/** Turns the resolved config's auth part into a compiled token store (or auth off). */
import { parseAuthConfig } from "../../auth/config.js";
import { resolveAuthInput } from "../../auth/resolve.js";
import { type CompiledAuth, compileAuth } from "../../auth/tokens.js";
import type { ServerConfig } from "../config/resolve.js";

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
    tokens:
      config.auth.tokensEnv !== undefined
        ? { value: config.auth.tokensEnv, source: "CARTOGRAPHER_TOKENS/--tokens" }
        : undefined,
    mode:
      config.auth.mode !== undefined
        ? { value: config.auth.mode, source: "CARTOGRAPHER_AUTH/--auth" }
        : undefined,
  });
  const kbNames = config.kbs.map((kb) => kb.name);
  return {
    compiled: compileAuth(input, { kbNames }),
    authorizationServers: section.authorization_servers,
  };
}
