import { isProviderId, loadConfig, PROVIDER_IDS, type ProviderId, saveConfig } from "../config.js";
import { ConfigError } from "../errors.js";
import {
  type CommandIo,
  type CommonOptions,
  configPath,
  EXIT_ERROR,
  EXIT_OK,
  loggerFor,
  reportError,
} from "../lib/io.js";
import { removeProvider } from "../provision/connection.js";
import { bindingOfLock, orphanedLocks } from "../provision/orphans.js";
import { readLock } from "../provision/run.js";
import { unprovision } from "../provision/step.js";

export interface DisconnectOptions extends CommonOptions {
  /** Provider ids or ["all"]; empty = every provider in the yaml. */
  providers?: string[];
}

/**
 * `cartographer disconnect [provider…|all]`: removes exactly what connect wrote — the KBs'
 * artifacts the lockfile records (files the user edited are kept and named), the entries the
 * client owns and its instructions block — at each provider's saved scope, and forgets the
 * provider in the yaml and the lockfile. Running it again changes nothing.
 */
export async function disconnect(io: CommandIo, opts: DisconnectOptions = {}): Promise<number> {
  try {
    const loaded = await loadConfig(configPath(io, opts));
    const { config } = loaded;
    const names = opts.providers ?? [];
    let ids: ProviderId[];
    if (names.includes("all")) ids = [...PROVIDER_IDS];
    else if (names.length === 0) {
      ids = config.providers.map((p) => p.name);
      if (ids.length === 0) {
        // Idempotent, but never silent: say why nothing happened.
        io.stdout.write(
          `nothing to disconnect: ${loaded.exists ? `no provider is connected in ${loaded.file}` : `${loaded.file} does not exist`}\n`,
        );
        return EXIT_OK;
      }
    } else {
      for (const n of names) {
        if (!isProviderId(n)) {
          throw new ConfigError(
            `unknown provider "${n}"; expected ${PROVIDER_IDS.join(", ")} or all`,
          );
        }
      }
      ids = names as ProviderId[];
    }
    // A provider whose file cannot be edited stays connected (and in the yaml); the others go.
    const done: ProviderId[] = [];
    // Lock entries of providers removed from the yaml by hand (orphans.ts) are removed too.
    const orphans = orphanedLocks(io, config, await readLock(io));
    for (const id of ids) {
      const saved = config.providers.find((p) => p.name === id);
      const stray = orphans.filter((o) => o.provider === id).map(bindingOfLock);
      const targets = saved || stray.length === 0 ? [saved ?? { name: id }, ...stray] : stray;
      // Artifacts first (offline, from the lockfile): if they cannot be removed, the provider
      // stays connected and recorded, so a later disconnect can finish the job.
      if (!(await unprovision(io, config, targets))) {
        loggerFor(io).error(`${id}: left connected`);
        continue;
      }
      for (const o of stray) {
        if (o.scope !== "project") continue; // the user scope's entries go just below
        await removeProvider(io, config, o).catch((err: unknown) =>
          loggerFor(io).error(`${id}: ${(err as Error)?.message ?? String(err)}; left as it is`),
        );
      }
      try {
        const changed = await removeProvider(io, config, saved ?? { name: id });
        io.stdout.write(`${id}: ${changed ? "removed" : "nothing to remove"}\n`);
        done.push(id);
      } catch (err) {
        loggerFor(io).error(`${id}: ${(err as Error)?.message ?? String(err)}; left as it is`);
      }
    }
    const remaining = config.providers.filter((p) => !done.includes(p.name));
    if (loaded.exists && remaining.length !== config.providers.length) {
      await saveConfig(loaded, { ...config, providers: remaining });
    }
    return done.length === ids.length ? EXIT_OK : EXIT_ERROR;
  } catch (err) {
    return reportError(io, err);
  }
}
