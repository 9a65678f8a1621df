/**
 * `cartographer upgrade-repair [--dry-run]`: what an installer runs after upgrading the package
 * (the Go command's name and job), safe to run again by hand. In order, each step reported in a
 * closing summary:
 *
 *   1. the client yaml: a Go client's shape converted (original kept beside it);
 *   2. the lockfile: a Go client's moved aside (kept);
 *   3. the native service: restarted when it runs another version, then waited for until its
 *      /health reports this one; a stopped one stays stopped (service/repair.ts);
 *   4. the providers: `cartographer sync` under its ordinary policy — only against a server on
 *      this machine (a loopback server_url), as Go: this command never contacts a remote server
 *      on its own initiative.
 *
 * Exit 0 done (or nothing to do), 1 the files and service are repaired but the sync failed or
 * kept files of yours, 2 a file could not be converted or the service not verified (no sync
 * then). `--dry-run` writes, restarts and syncs nothing.
 */
import { type ClientConfig, loadConfig } from "../config.js";
import { baseUrlOf } from "../health.js";
import { type CommandIo, type CommonOptions, configPath, EXIT_ERROR, EXIT_OK } from "../lib/io.js";
import { type FileRepair, repairClientConfig, repairLockfile } from "../lib/migrate-files.js";
import { repairService, type ServiceRepairDeps } from "../service/repair.js";
import { sync } from "./sync.js";

export const EXIT_SYNC_PENDING = 1;

export interface UpgradeRepairOptions extends CommonOptions {
  dryRun?: boolean;
}

export interface UpgradeRepairDeps {
  /** Absent where native services are not supported (neither systemd nor launchd). */
  service?: ServiceRepairDeps;
}

const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]", "::1"]);

/** Why the providers are not synced against `serverUrl`, or undefined when they may be. */
export function syncRefusal(serverUrl: string): string | undefined {
  let url: URL;
  try {
    url = new URL(baseUrlOf(serverUrl));
  } catch {
    return `server_url ${JSON.stringify(serverUrl)} is not a URL`;
  }
  if (url.protocol !== "http:" || !LOOPBACK.has(url.hostname))
    return `server_url ${url.origin} is not a server on this machine (upgrade-repair syncs only against a loopback http server_url); run cartographer sync yourself`;
  return undefined;
}

export async function upgradeRepair(
  io: CommandIo,
  opts: UpgradeRepairOptions,
  deps: UpgradeRepairDeps,
): Promise<number> {
  const dry = opts.dryRun === true;
  const summary: string[] = [];
  const notes: string[] = [];
  const finish = (code: number) => {
    io.stdout.write(`upgrade-repair${dry ? " (dry run: nothing written)" : ""}:\n`);
    for (const line of summary) io.stdout.write(`  ${line}\n`);
    for (const n of notes) io.stdout.write(`note: ${n}\n`);
    return code;
  };
  const file = configPath(io, opts);
  const files: Array<() => Promise<FileRepair>> = [
    () => repairClientConfig(io, file, dry),
    () => repairLockfile(io, dry),
  ];
  // A dry run converts nothing, so the sync step is judged on the conversion's result.
  let converted: ClientConfig | undefined;
  for (const step of files) {
    try {
      const done = await step();
      summary.push(done.message);
      notes.push(...done.notes);
      converted ??= done.converted;
    } catch (err) {
      summary.push(`failed: ${(err as Error).message}`);
      return finish(EXIT_ERROR);
    }
  }
  if (deps.service) {
    const service = await repairService(deps.service, dry).catch((err: unknown) => ({
      state: "failed" as const,
      message: (err as Error).message,
    }));
    summary.push(`service: ${service.message}`);
    if (service.state === "failed") {
      notes.push(
        "providers not synced: the service was not verified; fix it, then cartographer sync",
      );
      return finish(EXIT_ERROR);
    }
  } else summary.push("service: native services are not supported on this system; skipped");
  return finish(await syncProviders(io, { file, dry, converted }, summary));
}

interface SyncStep {
  file: string;
  dry: boolean;
  /** The yaml's conversion, judged in a dry run where it was not written. */
  converted: ClientConfig | undefined;
}

async function syncProviders(io: CommandIo, step: SyncStep, summary: string[]): Promise<number> {
  const { file, dry } = step;
  let config: ClientConfig;
  let exists = true;
  try {
    if (dry && step.converted) config = step.converted;
    else {
      const loaded = await loadConfig(file);
      config = loaded.config;
      exists = loaded.exists;
    }
  } catch (err) {
    summary.push(`providers: not synced: ${(err as Error).message}`);
    return EXIT_SYNC_PENDING;
  }
  if (!exists || config.providers.length === 0) {
    summary.push("providers: none connected; nothing to sync");
    return EXIT_OK;
  }
  const refusal = syncRefusal(config.server_url);
  if (refusal) {
    summary.push(`providers: not synced: ${refusal}`);
    return EXIT_OK;
  }
  const names = config.providers.map((p) => p.name).join(", ");
  if (dry) {
    summary.push(`providers: would run cartographer sync (${names})`);
    return EXIT_OK;
  }
  const code = await sync(io, { config: file });
  if (code === EXIT_OK) {
    summary.push(
      `providers: synced (${names}); restart open agent sessions to pick up what changed`,
    );
    return EXIT_OK;
  }
  summary.push(
    code === 1
      ? `providers: synced (${names}), files you edited kept (see above; sync --force overwrites them)`
      : "providers: sync failed (see above); retry with cartographer sync",
  );
  return EXIT_SYNC_PENDING;
}
