/**
 * `cartographer kb resync <kb>`: after a force-push stopped a KB's sync (`sync_status` state
 * `diverged`), keep the remote and re-apply only this server's unpushed commits
 * (kb/sync/resync.ts, docs/sync.md "Force-push"). Runs with the KB's server stopped: it takes
 * the KB's lock, so a running server is named instead of raced.
 */
import { existsSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { isKbError } from "../../common/errors.js";
import { configuredIdentity, FALLBACK_IDENTITY } from "../../kb/git/git.js";
import { acquireKbLock } from "../../kb/locks/kb-lock.js";
import { redactRemote, remoteAccess } from "../../kb/sync/remote-access.js";
import { originUrl } from "../../kb/sync/remote-git.js";
import { resyncKb } from "../../kb/sync/resync.js";
import { stderrLogger } from "../../logger.js";
import { normalizeKbName } from "../config/values.js";
import { CliExit, type CliIo, EXIT_USAGE } from "../io.js";
import { serverSyncConfig, syncSettingsFor } from "./kb-clone.js";

/** `<kb>`: a KB name in the data directory, or a path (anything with a slash). */
function kbRoot(io: CliIo, kb: string, dataDir: string): { name: string; root: string } {
  const root = /[\\/]/.test(kb) ? resolve(io.cwd, kb) : join(dataDir, kb);
  if (!existsSync(join(root, ".git")))
    throw new CliExit(EXIT_USAGE, `KB '${kb}' not found: no git repository at ${root}`);
  return { name: normalizeKbName(basename(root)), root };
}

export async function resyncCommand(io: CliIo, kb: string, dataDir: string): Promise<void> {
  const { name, root } = kbRoot(io, kb, dataDir);
  const url = await originUrl(root);
  if (!url) throw new CliExit(EXIT_USAGE, `KB '${name}' has no origin remote: nothing to resync`);
  const logger = stderrLogger(io.stderr);
  const lock = await acquireKbLock({ name, root }, "resync", logger).catch((err: unknown) => {
    if (!isKbError(err, "locked")) throw err;
    throw new CliExit(1, `${err.message}: stop that server, run resync, then start it again`);
  });
  try {
    const settings = syncSettingsFor({ sync: serverSyncConfig(io) }, { name }, io.env);
    const access = remoteAccess({ ...settings, remoteUrl: url }, io.env);
    const committer = settings.committer ?? (await configuredIdentity(root)) ?? FALLBACK_IDENTITY;
    const done = await resyncKb(
      { root, access, env: { ...io.env, ...access.env }, url },
      committer,
    ).catch((err: unknown) => {
      throw new CliExit(
        1,
        `cannot resync KB '${name}': ${redactRemote((err as Error).message, url)}`,
      );
    });
    const lines = [
      `resynced KB '${name}' onto the remote's ${done.branch} at ${done.remote.slice(0, 12)}: ${done.reapplied.length} unpushed commit(s) re-applied`,
      ...done.reapplied.map((s) => `  re-applied: ${s}`),
      ...done.skipped.map(
        (s) => `  skipped (no longer applies; kept under refs/cartographer/before-resync): ${s}`,
      ),
      done.pushProblem
        ? `  not pushed yet (${done.pushProblem}); the server pushes them when it starts`
        : "  the remote has them now; start the server again",
    ];
    io.stdout.write(`${lines.join("\n")}\n`);
  } finally {
    await lock.release();
  }
}
