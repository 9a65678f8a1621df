import { type ClientConfig, loadConfig } from "../config.js";
import { ClientError } from "../errors.js";
import { baseUrlOf, fetchHealth, type ServerHealth } from "../health.js";
import { checkProvider, describeCheck, type ProviderCheck } from "./check.js";
import {
  type CommandIo,
  type CommonOptions,
  configPath,
  EXIT_DRIFT,
  EXIT_OK,
  reportFailure,
} from "./io.js";
import { planProvider, type Topology } from "./plan.js";

export interface StatusOptions extends CommonOptions {
  json?: boolean;
}

function shape(mode: string | undefined, routedPath: string | undefined): string {
  return mode === "routed" ? `routed (${routedPath ?? "?"})` : (mode ?? "unknown");
}

/** Topology changes and version changes since the last connect/sync, worded for the user. */
export function serverChanges(config: ClientConfig, health: ServerHealth): string[] {
  const out: string[] = [];
  const saved = config.server_mount_mode;
  if (
    saved !== undefined &&
    (saved !== health.mountMode ||
      (saved === "routed" && config.server_routed_path !== health.routedPath))
  ) {
    // D187: a mode switch changes the shape of every entry; status reports it, never heals it.
    const pathOnly = saved === health.mountMode;
    const from = pathOnly ? shape(saved, config.server_routed_path) : saved;
    const to = pathOnly ? shape(health.mountMode, health.routedPath) : health.mountMode;
    out.push(`mount mode changed: ${from} → ${to}; run cartographer reconnect`);
  }
  if (config.server_version !== undefined && config.server_version !== health.version) {
    out.push(
      `server version changed: ${config.server_version} → ${health.version}; run cartographer sync`,
    );
  }
  return out;
}

/** Runs the per-provider checks of every saved binding against a topology. */
export async function checkAll(
  config: ClientConfig,
  topology: Topology,
  io: CommandIo,
): Promise<ProviderCheck[]> {
  const checks: ProviderCheck[] = [];
  for (const binding of config.providers) {
    checks.push(await checkProvider(planProvider(config, binding, topology, io, false), config));
  }
  return checks;
}

/** `cartographer status [--json]`: 0 in sync, 1 drift, 2 error / unreachable / no yaml. */
export async function status(io: CommandIo, opts: StatusOptions = {}): Promise<number> {
  const fail = (err: unknown): number => reportFailure(io, err, opts.json);
  try {
    const loaded = await loadConfig(configPath(io, opts));
    if (!loaded.exists) {
      return fail(
        new ClientError("config", `${loaded.file} does not exist; run cartographer connect first`),
      );
    }
    const { config } = loaded;
    const base = baseUrlOf(config.server_url);
    const health = await fetchHealth(base, io.fetch);
    const messages = serverChanges(config, health);
    const checks = await checkAll(
      config,
      {
        base,
        ...(health.routedPath ? { routedPath: health.routedPath } : {}),
        serverKbs: health.kbs,
      },
      io,
    );
    const inSync = messages.length === 0 && checks.every((c) => c.state === "in-sync");
    if (opts.json) {
      io.stdout.write(
        `${JSON.stringify({
          state: inSync ? "in-sync" : "drift",
          server: {
            url: base,
            version: health.version,
            mount_mode: health.mountMode,
            ...(health.routedPath ? { routed_path: health.routedPath } : {}),
            kbs: health.kbs,
          },
          messages,
          providers: checks,
        })}\n`,
      );
    } else {
      io.stdout.write(
        `server ${base}: version ${health.version}, ${shape(health.mountMode, health.routedPath)}, KBs ${health.kbs.join(", ") || "(none)"}\n`,
      );
      for (const m of messages) io.stdout.write(`${m}\n`);
      for (const c of checks) io.stdout.write(`${describeCheck(c)}\n`);
      io.stdout.write(
        inSync ? "in sync\n" : "drift: run cartographer sync (or reconnect, as noted)\n",
      );
    }
    return inSync ? EXIT_OK : EXIT_DRIFT;
  } catch (err) {
    return fail(err);
  }
}
