import { loadConfig } from "../config.js";
import { ClientError } from "../errors.js";
import { baseUrlOf, fetchHealth } from "../health.js";
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
import { checkAll, overall, printBlockers, serverChanges, shape } from "../lib/provider-status.js";
import { claudeApproval, offlineBlockers, probeBlockers } from "../lib/readiness.js";
import { oauthOffer, oauthSignInNote } from "../oauth-offer.js";
import type { Topology } from "../provision/provider-plan.js";
import { printStatus, provisioningStatus } from "../provision/step.js";

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
    const oauth = config.token_env ? null : await oauthOffer(base, io.fetch);
    const blockers = [
      ...(await offlineBlockers(config, io)),
      ...approval.blockers,
      ...(await probeBlockers(config, topology, io, oauth)),
    ];
    const notes = [...approval.notes];
    if (oauth) notes.push(oauthSignInNote(config.providers.map((b) => b.name).join(", "), oauth));
    // Artifacts (docs/decisions.md "`status` and `doctor` exit 1"): compared with the lockfile and
    // the disk, never written.
    const provisioning = await provisioningStatus(io, config, topology);
    const drift =
      messages.length > 0 ||
      checks.some((c) => c.state !== "in-sync") ||
      provisioning.state === "drift";
    const { state, line } = overall(drift, blockers);
    // A manifest that cannot be fetched or verified is an error, unless a blocker (token unset
    // or refused) already says why the server answered nothing.
    // With OAuth and no token_env this CLI cannot read the manifests: the note above says so.
    const failed = provisioning.state === "error" && blockers.length === 0 && !oauth;
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
