import { loadConfig } from "../config.js";
import { ClientError } from "../errors.js";
import { baseUrlOf } from "../health.js";
import { describeCheck } from "../lib/check.js";
import {
  type CommandIo,
  type CommonOptions,
  configPath,
  EXIT_DRIFT,
  EXIT_OK,
  reportFailure,
} from "../lib/io.js";
import { unresolvedPlaceholderWarnings } from "../lib/placeholder-warnings.js";
import { checkAll, overall, printBlockers } from "../lib/provider-status.js";
import { claudeApproval, offlineBlockers } from "../lib/readiness.js";
import { tokenlessEntriesNote } from "../oauth-offer.js";
import { checkArtifactsOffline, describeArtifacts } from "../provision/offline-check.js";
import type { Topology } from "../provision/provider-plan.js";
import { provisionTargetFor } from "../provision/targets/index.js";

export interface DoctorOptions extends CommonOptions {
  json?: boolean;
}

/**
 * `cartographer doctor`: offline. Derives the expected entries from the yaml alone (mount mode,
 * routed path and KB list saved by the last connect) and checks every provider file:
 * in-sync / partial / missing; then what it can tell without the server: the token variable is
 * set, Codex trusts its project (readiness.ts), entries without a token are explained (a note:
 * the agent tool signs in by OAuth); and the KB artifacts the lockfile records are
 * still on disk as written (missing or edited → partial, with the paths). It never asks the server (status does, and
 * tells a refused token). Exit 0 all in sync, 1 otherwise, 2 no usable yaml.
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
    const topology: Topology = {
      base: baseUrlOf(config.server_url),
      ...(routed ? { routedPath: config.server_routed_path } : {}),
      serverKbs: config.server_kbs ?? [],
    };
    const checks = await checkAll(config, topology, io);
    const approval = await claudeApproval(config, topology, io);
    const blockers = [...(await offlineBlockers(config, io)), ...approval.blockers];
    // No token_env: the agent tools sign in themselves (OAuth) or need nothing (oauth-offer.ts).
    const notes =
      config.token_env || config.providers.length === 0
        ? [...approval.notes]
        : [...approval.notes, tokenlessEntriesNote(config.providers.map((b) => b.name).join(", "))];
    // The KB artifacts the lockfile records, against the disk (offline-check.ts).
    const artifacts = await checkArtifactsOffline(io, config, provisionTargetFor);
    // Placeholders connect/sync could not resolve (lib/placeholder-warnings.ts): a note, not drift.
    notes.push(...(await unresolvedPlaceholderWarnings(io, config)));
    const { state } = overall(
      checks.some((c) => c.state !== "in-sync") ||
        artifacts.providers.some((p) => p.state !== "in-sync") ||
        artifacts.orphaned.length > 0,
      blockers,
    );
    if (opts.json) {
      io.stdout.write(
        `${JSON.stringify({ state, blockers, notes, providers: checks, artifacts })}\n`,
      );
    } else {
      for (const c of checks) io.stdout.write(`${describeCheck(c)}\n`);
      for (const line of describeArtifacts(artifacts)) io.stdout.write(`${line}\n`);
      printBlockers(io, blockers);
      for (const n of notes) io.stdout.write(`note: ${n}\n`);
    }
    return state === "in-sync" ? EXIT_OK : EXIT_DRIFT;
  } catch (err) {
    return reportFailure(io, err, opts.json);
  }
}
