import { isProviderId, loadConfig, PROVIDER_IDS, type ProviderId, saveConfig } from "../config.js";
import { ConfigError } from "../errors.js";
import { removeProvider } from "./apply.js";
import { type CommandIo, type CommonOptions, configPath, EXIT_OK, reportError } from "./io.js";

export interface DisconnectOptions extends CommonOptions {
  /** Provider ids or ["all"]; empty = every provider in the yaml. */
  providers?: string[];
}

/**
 * `cartographer disconnect [provider…|all]`: removes exactly what connect wrote — the entries
 * the client owns and its instructions block — at each provider's saved scope, and forgets the
 * provider in the yaml. Running it again changes nothing.
 */
export async function disconnect(io: CommandIo, opts: DisconnectOptions = {}): Promise<number> {
  try {
    const loaded = await loadConfig(configPath(io, opts));
    const { config } = loaded;
    const names = opts.providers ?? [];
    let ids: ProviderId[];
    if (names.includes("all")) ids = [...PROVIDER_IDS];
    else if (names.length === 0) ids = config.providers.map((p) => p.name);
    else {
      for (const n of names) {
        if (!isProviderId(n)) {
          throw new ConfigError(
            `unknown provider "${n}"; expected ${PROVIDER_IDS.join(", ")} or all`,
          );
        }
      }
      ids = names as ProviderId[];
    }
    for (const id of ids) {
      const scope = config.providers.find((p) => p.name === id)?.scope ?? "user";
      const changed = await removeProvider(id, scope, config.server_name, io);
      io.stdout.write(`${id}: ${changed ? "removed" : "nothing to remove"}\n`);
    }
    const remaining = config.providers.filter((p) => !ids.includes(p.name));
    if (loaded.exists && remaining.length !== config.providers.length) {
      await saveConfig(loaded, { ...config, providers: remaining });
    }
    return EXIT_OK;
  } catch (err) {
    return reportError(io, err);
  }
}
