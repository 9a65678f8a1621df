import { loadConfig, type ProviderBinding } from "../config.js";
import { baseUrlOf, fetchHealth } from "../health.js";
import { applyBindings } from "../lib/apply-bindings.js";
import { checkKnownKbs } from "../lib/bindings.js";
import {
  type CommandIo,
  type CommonOptions,
  configPath,
  EXIT_ERROR,
  loggerFor,
  reportError,
} from "../lib/io.js";
import { removeProvider } from "../provision/connection.js";
import { prepareStep, topologyOf } from "../provision/step.js";

/**
 * `cartographer reconnect`: disconnect + connect with the saved settings. The server is asked
 * first, so an unreachable server leaves every file untouched (exit 2). The entries and blocks
 * are rewritten; the KBs' artifacts end as a `sync` leaves them (written, updated, pruned by
 * the same plan; unchanged files untouched), never removed first.
 */
export async function reconnect(io: CommandIo, opts: CommonOptions = {}): Promise<number> {
  try {
    const loaded = await loadConfig(configPath(io, opts));
    if (!loaded.exists || loaded.config.providers.length === 0) {
      loggerFor(io).error(
        `no connected providers in ${loaded.file}; run cartographer connect first`,
      );
      return EXIT_ERROR;
    }
    const { config } = loaded;
    const health = await fetchHealth(baseUrlOf(config.server_url), io.fetch);
    checkKnownKbs(config.providers, health);
    // Manifests and trust before anything is touched, as sync does: a bad signature or hash
    // leaves every file as it is. The artifacts are then brought to what a sync leaves — not
    // removed and rewritten: an unchanged file keeps its mtime.
    const topology = topologyOf(baseUrlOf(config.server_url), health);
    const step = await prepareStep(io, config, config.providers, topology, {});
    // A provider whose file cannot be edited is left exactly as it is; the others proceed.
    const removed: ProviderBinding[] = [];
    for (const p of config.providers) {
      try {
        await removeProvider(io, config, p);
        removed.push(p);
      } catch (err) {
        loggerFor(io).error(`${p.name}: ${(err as Error)?.message ?? String(err)}; left as it is`);
      }
    }
    const code = await applyBindings(io, {
      loaded,
      config,
      bindings: removed,
      health,
      dryRun: false,
      provision: step,
    });
    return removed.length < config.providers.length ? EXIT_ERROR : code;
  } catch (err) {
    return reportError(io, err);
  }
}
