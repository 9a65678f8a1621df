import { type ClientConfig, loadConfig } from "../config.js";
import { ClientError } from "../errors.js";
import { baseUrlOf, fetchHealth, type ServerHealth } from "../health.js";
import { checkProvider, describeCheck, type ProviderCheck } from "./check.js";
import {
  type CommandIo,
  type CommonOptions,
  configPath,
  EXIT_DRIFT,
  EXIT_ERROR,
  EXIT_OK,
  reportFailure,
} from "./io.js";
import { planProvider, type Topology } from "./plan.js";
import { printStatus, provisioningStatus } from "./provisioning.js";
import { claudeApproval, offlineBlockers, probeBlockers } from "./readiness.js";

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

/**
 * The overall state and its last line: drift (files or server facts differ: sync/reconnect
 * heals it) wins over blocked (files match, but the agent tools cannot use them: token unset
 * or refused, Codex project untrusted).
 */
export function overall(
  drift: boolean,
  blockers: string[],
): { state: "in-sync" | "drift" | "blocked"; line: string } {
  if (drift)
    return { state: "drift", line: "drift: run cartographer sync (or reconnect, as noted)" };
  if (blockers.length > 0) {
    return {
      state: "blocked",
      line: "the files are in sync, but the agent tools cannot use them yet: see above",
    };
  }
  return { state: "in-sync", line: "in sync" };
}

/** Prints each blocker; a multi-line one (a TOML snippet) keeps its lines, indented. */
export function printBlockers(io: CommandIo, blockers: string[]): void {
  for (const b of blockers) io.stdout.write(`not usable: ${b.replace(/\n/g, "\n    ")}\n`);
}

/**
 * `cartographer status [--json]`: 0 in sync, 1 drift (entries, server facts, or artifacts: KB
 * changed, file edited or deleted by hand) or blocked, 2 error / unreachable / no yaml / a
 * manifest that cannot be fetched or verified. Never writes.
 */
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
    const topology: Topology = {
      base,
      ...(health.routedPath ? { routedPath: health.routedPath } : {}),
      serverKbs: health.kbs,
    };
    const checks = await checkAll(config, topology, io);
    const approval = await claudeApproval(config, topology, io);
    const blockers = [
      ...(await offlineBlockers(config, io)),
      ...approval.blockers,
      ...(await probeBlockers(config, topology, io)),
    ];
    const notes = approval.notes;
    // Artifacts (issue 13): compared with the lockfile and the disk, never written.
    const provisioning = await provisioningStatus(io, config, topology);
    const drift =
      messages.length > 0 ||
      checks.some((c) => c.state !== "in-sync") ||
      provisioning.state === "drift";
    const { state, line } = overall(drift, blockers);
    // A manifest that cannot be fetched or verified is an error, unless a blocker (token unset
    // or refused) already says why the server answered nothing.
    const failed = provisioning.state === "error" && blockers.length === 0;
    if (opts.json) {
      io.stdout.write(
        `${JSON.stringify({
          state,
          server: {
            url: base,
            version: health.version,
            mount_mode: health.mountMode,
            ...(health.routedPath ? { routed_path: health.routedPath } : {}),
            kbs: health.kbs,
          },
          messages,
          blockers,
          notes,
          providers: checks,
          provisioning,
        })}\n`,
      );
    } else {
      io.stdout.write(
        `server ${base}: version ${health.version}, ${shape(health.mountMode, health.routedPath)}, KBs ${health.kbs.join(", ") || "(none)"}\n`,
      );
      for (const m of messages) io.stdout.write(`${m}\n`);
      for (const c of checks) io.stdout.write(`${describeCheck(c)}\n`);
      if (provisioning.state === "error") {
        io.stdout.write(`artifacts: not checked: ${provisioning.message ?? "unknown error"}\n`);
      } else printStatus(io, provisioning);
      printBlockers(io, blockers);
      for (const n of notes) io.stdout.write(`note: ${n}\n`);
      io.stdout.write(`${line}\n`);
    }
    if (failed) return EXIT_ERROR;
    return state === "in-sync" ? EXIT_OK : EXIT_DRIFT;
  } catch (err) {
    return fail(err);
  }
}
