import { loadConfig } from "../config.js";
import { ClientError } from "../errors.js";
import { baseUrlOf } from "../health.js";
import { describeCheck } from "./check.js";
import {
  type CommandIo,
  type CommonOptions,
  configPath,
  EXIT_DRIFT,
  EXIT_OK,
  reportFailure,
} from "./io.js";
import { checkAll } from "./status.js";

export interface DoctorOptions extends CommonOptions {
  json?: boolean;
}

/**
 * `cartographer doctor`: offline. Derives the expected entries from the yaml alone (mount mode,
 * routed path and KB list saved by the last connect) and checks every provider file:
 * in-sync / partial / missing. Exit 0 all in sync, 1 otherwise, 2 no usable yaml.
 */
export async function doctor(io: CommandIo, opts: DoctorOptions = {}): Promise<number> {
  try {
    const loaded = await loadConfig(configPath(io, opts));
    const { config } = loaded;
    if (!loaded.exists) {
      throw new ClientError(
        "config",
        `${loaded.file} does not exist; run cartographer connect first`,
      );
    }
    if (config.server_mount_mode === undefined) {
      throw new ClientError(
        "config",
        `${loaded.file} has no saved server facts (connect never reached the server); run cartographer connect`,
      );
    }
    const routed = config.server_mount_mode === "routed" && config.server_routed_path !== undefined;
    const checks = await checkAll(
      config,
      {
        base: baseUrlOf(config.server_url),
        ...(routed ? { routedPath: config.server_routed_path } : {}),
        serverKbs: config.server_kbs ?? [],
      },
      io,
    );
    const inSync = checks.every((c) => c.state === "in-sync");
    if (opts.json) {
      io.stdout.write(
        `${JSON.stringify({ state: inSync ? "in-sync" : "drift", providers: checks })}\n`,
      );
    } else for (const c of checks) io.stdout.write(`${describeCheck(c)}\n`);
    return inSync ? EXIT_OK : EXIT_DRIFT;
  } catch (err) {
    return reportFailure(io, err, opts.json);
  }
}
