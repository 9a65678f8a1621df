/**
 * How git's network commands reach a KB's remote: the SSH command and the HTTPS credential
 * helper, as git `-c` arguments and environment (pure). The token itself never appears in
 * argv, in the environment or in any message: the helper `cat`s the token file at the moment
 * git asks for a password and prints it into git's pipe (a shell builtin, so no process
 * carries it as an argument). Every inherited credential helper is cleared first, so no
 * `store` helper of the machine writes the token to disk.
 */
import { shortenAbsolutePaths } from "../shorten-paths.js";

export interface RemoteAccessOptions {
  sshKey?: string;
  knownHosts?: string;
  tokenFile?: string;
}

export interface RemoteAccess {
  /** `-c` options to put before the git subcommand. */
  args: string[];
  /** Variables added to the server's environment for the git child. */
  env: Record<string, string>;
}

/** Environment variable naming the token file, read by the credential helper below. */
export const TOKEN_FILE_VAR = "CARTOGRAPHER_GIT_TOKEN_FILE";

/**
 * The helper git runs as `sh -c '<this> get'`: answers `get` with a username and the trimmed
 * content of the token file; `store`/`erase` are ignored (nothing is ever saved).
 */
export const CREDENTIAL_HELPER = `!f() { test "$1" = get || exit 0; t=$(tr -d '\\r\\n' < "$${TOKEN_FILE_VAR}") || exit 1; printf 'username=x-access-token\\npassword=%s\\n' "$t"; }; f`;

/** Single-quotes `value` for the shell git runs GIT_SSH_COMMAND through. */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** GIT_SSH_COMMAND for a key: only that key, host key checked against known hosts. */
export function sshCommand(sshKey: string, knownHosts?: string): string {
  const parts = [
    "ssh",
    "-i",
    shellQuote(sshKey),
    "-o",
    "IdentitiesOnly=yes",
    "-o",
    "StrictHostKeyChecking=yes",
    "-o",
    "BatchMode=yes",
  ];
  if (knownHosts) parts.push("-o", shellQuote(`UserKnownHostsFile=${knownHosts}`));
  return parts.join(" ");
}

export function remoteAccess(opts: RemoteAccessOptions): RemoteAccess {
  // Never block on a terminal prompt: a server has none, a missing credential is an error.
  const env: Record<string, string> = { GIT_TERMINAL_PROMPT: "0" };
  const args: string[] = [];
  if (opts.sshKey) env.GIT_SSH_COMMAND = sshCommand(opts.sshKey, opts.knownHosts);
  if (opts.tokenFile) {
    env[TOKEN_FILE_VAR] = opts.tokenFile;
    args.push("-c", "credential.helper=", "-c", `credential.helper=${CREDENTIAL_HELPER}`);
  }
  return { args, env };
}

/**
 * A git message made safe to show: credentials inside URLs (`https://user:secret@host`) and the
 * remote's own URL or path (a server path) are replaced, and any other absolute server path (an
 * ssh key or known_hosts file that ssh names in a warning) is shortened to its last segment.
 */
export function redactRemote(message: string, remoteUrl?: string): string {
  let out = message.replace(/([a-z][a-z0-9+.-]*:\/\/)[^@/\s]+@/gi, "$1***@");
  if (remoteUrl) {
    const shown = remoteUrl.replace(/([a-z][a-z0-9+.-]*:\/\/)[^@/\s]+@/gi, "$1***@");
    out = out.split(remoteUrl).join("<origin>").split(shown).join("<origin>");
  }
  return shortenAbsolutePaths(out);
}
