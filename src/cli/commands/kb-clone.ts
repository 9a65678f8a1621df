/**
 * Cloning remote KBs (docs/sync.md "Configuration"): `cartographer kb clone URL`, and serve's clone
 * of every configured remote KB that is not on disk yet. The token (git.token_dir) and SSH key
 * reach git the way sync uses them (kb/sync/remote-access.ts); messages never show a credential.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { writeFileAtomic } from "../../common/atomic-write.js";
import type { SyncSettings } from "../../kb/core/types.js";
import { storeRemoteToken } from "../../kb/sync/embedded-token.js";
import { remoteAccess } from "../../kb/sync/remote-access.js";
import { cloneRepo } from "../../kb/sync/remote-git.js";
import { urlCredentials } from "../../kb/sync/url-credentials.js";
import type { Logger } from "../../logger.js";
import { loadConfigFile } from "../config/config-file.js";
import { settingsFrom } from "../config/pick.js";
import { resolveSyncConfig } from "../config/sync-keys.js";
import type { KbMountSpec, ServerConfig, SyncConfig } from "../config/types.js";
import type { CliIo } from "../io.js";

/** `<token_dir>/<kb>.token` when that file exists. */
export function tokenFileFor(sync: SyncConfig, name: string): string | undefined {
  if (!sync.tokenDir) return undefined;
  const file = join(sync.tokenDir, `${name}.token`);
  return existsSync(file) ? file : undefined;
}

/**
 * The server-wide sync settings `serve` would use (git.token_dir, git.ssh_key, their variables),
 * for the commands that reach a remote outside a server: CARTOGRAPHER_CONFIG's file, then the
 * environment.
 */
export function serverSyncConfig(io: CliIo): SyncConfig {
  const settings = settingsFrom(io.env);
  const configPath = settings.variable("CARTOGRAPHER_CONFIG");
  const at = (p: string) => resolve(io.cwd, p);
  const file = configPath ? loadConfigFile(at(configPath.value)) : {};
  return resolveSyncConfig(settings, file, at);
}

/** The KB's sync settings: server-wide keys, then the KB's own (ssh key, committer). */
export function syncSettingsFor(
  config: Pick<ServerConfig, "sync">,
  kb: Pick<KbMountSpec, "name" | "sshKey" | "knownHosts" | "committer">,
  env: Readonly<Record<string, string | undefined>>,
): SyncSettings {
  const { sync } = config;
  const sshKey = kb.sshKey ?? sync.sshKey;
  const knownHosts = kb.knownHosts ?? sync.knownHosts;
  const tokenFile = tokenFileFor(sync, kb.name);
  const committer = kb.committer ?? sync.committer;
  return {
    enabled: sync.enabled,
    inWindowMs: sync.inWindowMs,
    outDebounceMs: sync.outDebounceMs,
    pollMs: sync.pollMs,
    networkTimeoutMs: sync.networkTimeoutMs,
    env,
    ...(sshKey ? { sshKey } : {}),
    ...(knownHosts ? { knownHosts } : {}),
    ...(tokenFile ? { tokenFile } : {}),
    ...(committer ? { committer } : {}),
  };
}

/** Clones `url` into `dest` (its parent is created); throws the redacted reason. */
export async function cloneKb(
  url: string,
  dest: string,
  settings: Pick<SyncSettings, "sshKey" | "knownHosts" | "tokenFile" | "env" | "networkTimeoutMs">,
): Promise<void> {
  mkdirSync(dirname(dest), { recursive: true });
  // A token in the URL never reaches git's argv: it goes to the credential helper (a 0600
  // file beside the clone while it runs, then the clone's own .git/cartographer/).
  const embedded = urlCredentials(url);
  const scratch = embedded ? mkdtempSync(join(tmpdir(), "carto-clone-")) : null;
  const tokenFile = scratch ? join(scratch, "token") : settings.tokenFile;
  if (scratch && embedded)
    await writeFileAtomic(tokenFile as string, embedded.token, { mode: 0o600 });
  const cloneUrl = embedded?.url ?? url;
  const access = remoteAccess(
    {
      ...settings,
      ...(tokenFile ? { tokenFile } : {}),
      ...(embedded ? { tokenUser: embedded.user } : {}),
      remoteUrl: cloneUrl,
    },
    settings.env,
  );
  const problem = await cloneRepo(dirname(dest), cloneUrl, dest, access, {
    ...settings.env,
    ...access.env,
  }).finally(() => {
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });
  if (problem) throw new Error(problem);
  if (embedded) await storeRemoteToken(dest, embedded.user, embedded.token);
  if (!existsSync(join(dest, "data", "index.md")))
    throw new Error(
      `the clone at ${dest} has no data/index.md: the remote is not a Cartographer KB (create one with 'cartographer kb create' and push it)`,
    );
}

/**
 * Clones every configured remote KB whose folder is missing. A failed clone is logged; the KB
 * is then reported unavailable by the server, never fatal (docs/decisions.md "A KB that cannot open
 * is `unavailable`").
 */
export async function cloneMissingRemotes(
  config: ServerConfig,
  env: Readonly<Record<string, string | undefined>>,
  logger: Logger,
): Promise<void> {
  for (const kb of config.kbs) {
    if (!kb.remote || existsSync(kb.root)) continue;
    try {
      await cloneKb(kb.remote, kb.root, syncSettingsFor(config, kb, env));
      logger.info(`cloned KB '${kb.name}' into ${kb.root}`);
    } catch (err) {
      logger.error(`KB '${kb.name}' could not be cloned (${kb.source}): ${(err as Error).message}`);
    }
  }
}
