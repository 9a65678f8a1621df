import { loadConfig } from "../config.js";
import { ClientError } from "../errors.js";
import { baseUrlOf, fetchHealth } from "../health.js";
import { applyBindings } from "../lib/apply-bindings.js";
import { checkKnownKbs } from "../lib/bindings.js";
import {
  type CommandIo,
  type CommonOptions,
  configPath,
  EXIT_ERROR,
  EXIT_OK,
  loggerFor,
  reportError,
} from "../lib/io.js";
import { describeOrphan, orphanedLocks } from "../provision/orphans.js";
import { readLock } from "../provision/run.js";
import { type ProvisionFlags, prepareStep, topologyOf } from "../provision/step.js";
import { withPinnedKeys } from "../provision/trust.js";

export interface SyncOptions extends CommonOptions, ProvisionFlags {
  /** `--auto-trust`: unsigned KB artifacts accepted for this run only (not saved). */
  autoTrust?: boolean;
  /** `--pin-key <kb>=<hex>` values, parsed; saved into `signing_keys` with the config. */
  pinKeys?: Record<string, string[]>;
}

/**
 * `cartographer sync`: re-applies every saved provider against the live `/health`, then
 * materializes the KBs' artifacts (docs/client.md "Provisioning"). An unreachable server or
 * a bad signature / content hash leaves every file as it is (exit 2); manifests the server
 * cannot give leave the artifacts as they are (exit 2). Because the removal set covers both entry shapes, a sync also heals a topology
 * change (D288). Exit 1 when files the user edited were kept (`--force` overwrites them).
 */
export async function sync(io: CommandIo, opts: SyncOptions = {}): Promise<number> {
  try {
    const loaded = await loadConfig(configPath(io, opts));
    if (!loaded.exists) {
      loggerFor(io).error(`no ${loaded.file}; run cartographer connect first`);
      return EXIT_ERROR;
    }
    const config = withPinnedKeys(loaded.config, opts.pinKeys);
    if (config.providers.length === 0) {
      io.stdout.write("no providers connected; nothing to sync\n");
      for (const o of orphanedLocks(io, config, await readLock(io)))
        loggerFor(io).warn(describeOrphan(io, o).message);
      return EXIT_OK;
    }
    let health: Awaited<ReturnType<typeof fetchHealth>>;
    try {
      health = await fetchHealth(baseUrlOf(config.server_url), io.fetch);
    } catch (err) {
      if (err instanceof ClientError) {
        loggerFor(io).warn(`${err.message}; provider entries left as they are`);
        return EXIT_ERROR;
      }
      throw err;
    }
    checkKnownKbs(config.providers, health);
    // Manifests and trust before anything is written: a bad signature or hash leaves every file
    // as it is; a server that cannot give them leaves the artifacts as they are (exit 2).
    const topology = topologyOf(baseUrlOf(config.server_url), health);
    const step = await prepareStep(io, config, config.providers, topology, opts);
    return await applyBindings(io, {
      loaded,
      config,
      bindings: config.providers,
      health,
      dryRun: false,
      provision: step,
    });
  } catch (err) {
    return reportError(io, err);
  }
}
