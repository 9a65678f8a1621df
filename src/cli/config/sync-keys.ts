/**
 * Remote KBs and their sync settings (docs/sync.md), resolved at the edge like every other key
 * (pick.ts): the environment over YAML `git.*` and `kbs[]` keys. Durations are seconds (a
 * number) or Go's spelling (`30s`, `500ms`, `2m`).
 */
import { basename, resolve as resolvePath } from "node:path";
import { SettingError } from "../../common/errors.js";
import type { GitIdentity } from "../../kb/core/types.js";
import {
  DEFAULT_IN_WINDOW_MS,
  DEFAULT_OUT_DEBOUNCE_MS,
  DEFAULT_POLL_MS,
} from "../../kb/core/types.js";
import { DEFAULT_NETWORK_TIMEOUT_MS } from "../../kb/sync/network-git.js";
import { redactRemote } from "../../kb/sync/remote-access.js";
import { urlCredentials } from "../../kb/sync/url-credentials.js";
import type { Settings } from "./pick.js";
import type { FileConfig, KbEntry } from "./schema.js";
import type { GoServeFlags, SyncConfig } from "./types.js";
import { booleanSetting, durationMs, normalizeKbName, parseList } from "./values.js";

/** Per-KB remote keys of one `kbs[]` entry. */
export interface KbRemoteKeys {
  remote?: string;
  sshKey?: string;
  knownHosts?: string;
  author?: GitIdentity;
  committer?: GitIdentity;
}

const MAX_SECONDS = 86_400;

/** Seconds (number or digits) or a Go duration (`30s`, `500ms`, `2m`, `1h`) → ms. */
export function parseDurationMs(value: unknown, key: string): number {
  const ms = durationMs(value, ["ms", "s", "m", "h"]);
  if (!Number.isFinite(ms) || ms > MAX_SECONDS * 1000)
    throw new SettingError(
      `${key}: '${String(value)}' is not a duration; use seconds (30) or 30s, 500ms, 2m (0 = off/immediate, at most ${MAX_SECONDS} s)`,
    );
  return ms;
}

function pair(
  name: string | undefined,
  email: string | undefined,
  key: string,
): GitIdentity | undefined {
  if (name === undefined && email === undefined) return undefined;
  if (!name || !email) throw new SettingError(`${key}_name and ${key}_email go together: set both`);
  return { name, email };
}

/** `git.author`, or Go's `git.author_name` + `git.author_email` (both or neither). */
export function gitAuthorOf(git: FileConfig["git"]): GitIdentity | undefined {
  if (git?.author) return git.author;
  const name = git?.author_name;
  const email = git?.author_email;
  if (name === undefined && email === undefined) return undefined;
  if (name === undefined || email === undefined)
    throw new SettingError(
      "git.author_name and git.author_email go together: set both (or git.author: {name, email})",
    );
  return { name, email };
}

/** `flags`: Go's `--git-sync` (serve only; the kb commands have no such flag). */
export function resolveSyncConfig(
  settings: Settings,
  file: FileConfig,
  at: (p: string) => string,
  flags: Pick<GoServeFlags, "gitSync"> = {},
): SyncConfig {
  const git: NonNullable<FileConfig["git"]> = file.git ?? {};
  const enabled = booleanSetting(
    settings.pick(
      {
        flag: ["--git-sync", flags.gitSync],
        env: "CARTOGRAPHER_GIT_SYNC",
        key: ["git.sync", git.sync],
      },
      true,
    ),
  );
  const duration = (envKey: string, fileKey: keyof typeof git, fallback: number) => {
    const picked = settings.pick({ env: envKey, key: [`git.${fileKey}`, git[fileKey]] });
    return picked ? parseDurationMs(picked.value, picked.source) : fallback;
  };
  const tokenDir = settings.pick({
    env: "CARTOGRAPHER_GIT_TOKEN_DIR",
    key: ["git.token_dir", git.token_dir],
  })?.value;
  const committer = pair(git.committer_name, git.committer_email, "git.committer");
  return {
    enabled,
    inWindowMs: duration("CARTOGRAPHER_SYNC_IN_WINDOW", "in_window", DEFAULT_IN_WINDOW_MS),
    outDebounceMs: duration(
      "CARTOGRAPHER_SYNC_OUT_DEBOUNCE",
      "out_debounce",
      DEFAULT_OUT_DEBOUNCE_MS,
    ),
    pollMs: duration("CARTOGRAPHER_GIT_POLL_SECONDS", "poll_seconds", DEFAULT_POLL_MS),
    networkTimeoutMs: duration(
      "CARTOGRAPHER_GIT_NETWORK_TIMEOUT",
      "network_timeout",
      DEFAULT_NETWORK_TIMEOUT_MS,
    ),
    ...(tokenDir ? { tokenDir: at(tokenDir) } : {}),
    ...(git.ssh_key ? { sshKey: at(git.ssh_key) } : {}),
    ...(git.known_hosts ? { knownHosts: at(git.known_hosts) } : {}),
    ...(committer ? { committer } : {}),
  };
}

/** The remote keys of one `kbs[]` entry (paths resolved against the working directory). */
export function kbRemoteKeys(entry: KbEntry, i: number, at: (p: string) => string): KbRemoteKeys {
  const author = pair(entry.author_name, entry.author_email, `kbs.${i}.author`);
  const committer = pair(entry.committer_name, entry.committer_email, `kbs.${i}.committer`);
  return {
    ...(entry.remote ? { remote: entry.remote } : {}),
    ...(entry.ssh_key ? { sshKey: at(entry.ssh_key) } : {}),
    ...(entry.known_hosts ? { knownHosts: at(entry.known_hosts) } : {}),
    ...(author ? { author } : {}),
    ...(committer ? { committer } : {}),
  };
}

/** The KB name a remote gets: its last path segment without `.git` (Go's rule). */
export function remoteKbName(url: string): string {
  const last = basename(
    url.replace(/[/\\]+$/, "").replace(/^.*:/, (m) => (m.includes("/") ? m : "")),
  );
  return normalizeKbName(last.replace(/\.git$/i, ""));
}

/** CARTOGRAPHER_KB_REMOTES: a comma list of remote URLs (each cloned under `data`). */
export function envRemotes(settings: Settings): string[] {
  const remotes = settings.variable("CARTOGRAPHER_KB_REMOTES");
  return remotes ? parseList(remotes.value) : [];
}

/** Where a remote KB is cloned: `<data>/<name>` (name from the URL unless given). */
export function remoteRoot(
  dataDir: string | null,
  url: string,
  name: string | undefined,
  key: string,
): string {
  const folder = name ?? remoteKbName(url);
  if (!dataDir)
    throw new SettingError(
      `${key}: '${redactRemote(url)}' needs a data directory to be cloned into; set data (or --data / CARTOGRAPHER_DATA), or give the entry a path`,
    );
  if (!folder)
    throw new SettingError(
      `${key}: cannot derive a KB name from '${redactRemote(url)}'; set kbs[].name`,
    );
  return resolvePath(dataDir, folder);
}

/**
 * Start-up checks of remote KBs: `git.autocommit: false` with sync is refused (an uncommitted
 * tree under an autostash rebase ends in conflict markers served as content); a token inside
 * `kbs[].remote` is warned about (it sits in the config, in argv of git clone and, for a user's
 * `store` helper, in ~/.git-credentials; serve moves it into the KB's credential helper).
 */
export function checkRemoteKbs(
  kbs: readonly { name: string; remote?: string; source: string }[],
  autocommit: boolean,
  sync: Pick<SyncConfig, "enabled">,
  warnings: string[],
): void {
  const remote = kbs.find((k) => k.remote);
  if (!autocommit && sync.enabled && remote)
    throw new SettingError(
      `git.autocommit: false cannot be combined with remote sync (${remote.source} has remote ${redactRemote(remote.remote as string)}): set git.autocommit: true, or git.sync: false to serve it without syncing`,
    );
  for (const kb of kbs)
    if (kb.remote && urlCredentials(kb.remote))
      warnings.push(
        `${kb.source}: the remote URL of KB '${kb.name}' embeds a credential (${redactRemote(kb.remote)}): put the token in <git.token_dir>/${kb.name}.token instead; git is given it through the KB's credential helper, never in argv`,
      );
}
