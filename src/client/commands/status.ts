import { loadConfig } from "../config.js";
import { ClientError } from "../errors.js";
import type { ServerHealth } from "../health.js";
import { describeCheck } from "../lib/check.js";
import {
  type CommandIo,
  type CommonOptions,
  configPath,
  EXIT_DRIFT,
  EXIT_ERROR,
  EXIT_OK,
  reportFailure,
} from "../lib/io.js";
import { printBlockers, shape } from "../lib/provider-status.js";
import { type StatusReport, statusSnapshot } from "../lib/status-snapshot.js";
import { printStatus } from "../provision/step.js";

export interface StatusOptions extends CommonOptions {
  json?: boolean;
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
    const snapshot = await statusSnapshot(io, loaded);
    if (!snapshot.server.reachable) return fail(snapshot.server.error);
    const { url: base, health } = snapshot.server;
    const report = snapshot.report;
    if (!report) return fail(new ClientError("config", "status could not be gathered"));
    printReport(io, base, health, report, opts.json === true);
    if (report.failed) return EXIT_ERROR;
    return report.state === "in-sync" ? EXIT_OK : EXIT_DRIFT;
  } catch (err) {
    return fail(err);
  }
}

/** Prints a gathered report: one JSON object, or the lines a person reads. */
function printReport(
  io: CommandIo,
  base: string,
  health: ServerHealth,
  report: StatusReport,
  json: boolean,
): void {
  const { messages, blockers, notes, checks, provisioning, state, line } = report;
  if (json) {
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
    return;
  }
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
