import type { ClientConfig, ProviderBinding, Scope } from "../config.js";
import { ConfigError } from "../errors.js";
import type { CommandIo } from "../lib/io.js";
import { type EntrySpec, expectedEntries } from "../topology.js";
import { PROVIDERS } from "./targets/index.js";
import type { AuthRef, ProviderAdapter, ProviderFiles } from "./targets/provider.js";

/** Where the entries of one server shape point. */
export interface Topology {
  base: string;
  routedPath?: string;
  serverKbs: string[];
}

/** Everything needed to write or check one provider. */
export interface ProviderPlan {
  binding: ProviderBinding;
  adapter: ProviderAdapter;
  scope: Scope;
  files: ProviderFiles;
  entries: EntrySpec[];
  auth: AuthRef;
  /** KBs the entries reach, in order. */
  kbs: string[];
}

/** A binding's provider and the files it writes at the binding's scope (throws ConfigError). */
export function providerFiles(
  binding: Pick<ProviderBinding, "name" | "scope" | "project_dir">,
  io: CommandIo,
): { adapter: ProviderAdapter; files: ProviderFiles } {
  const adapter = PROVIDERS[binding.name];
  const scope = binding.scope ?? "user";
  return { adapter, files: adapter.paths(scope, io.home, binding.project_dir ?? io.cwd, io.env) };
}

/**
 * Builds a provider's plan. `forWrite` demands the literal token when the user opted into
 * writing it (Antigravity); for checks a placeholder stands in, since only presence is compared.
 */
export function planProvider(
  config: ClientConfig,
  binding: ProviderBinding,
  topology: Topology,
  io: CommandIo,
  forWrite: boolean,
): ProviderPlan {
  const { adapter, files } = providerFiles(binding, io);
  const scope = binding.scope ?? "user";
  const bindingKbs = binding.kbs ?? [];
  const entries = expectedEntries({
    base: topology.base,
    serverName: config.server_name,
    ...(topology.routedPath !== undefined ? { routedPath: topology.routedPath } : {}),
    binding: bindingKbs,
    serverKbs: topology.serverKbs,
  });
  const auth: AuthRef = {};
  if (adapter.referencesEnv) {
    if (config.token_env) auth.tokenEnv = config.token_env;
  } else if (binding.write_token) {
    const value = config.token_env ? io.env[config.token_env] : undefined;
    if (forWrite && !value) {
      throw new ConfigError(
        `${adapter.label}: writing the token was requested but ${config.token_env ? `$${config.token_env} is not set` : "no token_env is configured"}`,
      );
    }
    auth.literalToken = value ?? "(token)";
  }
  const kbs = bindingKbs.length > 0 ? bindingKbs : topology.serverKbs;
  return { binding, adapter, scope, files, entries, auth, kbs };
}
