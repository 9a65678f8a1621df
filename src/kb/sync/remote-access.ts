/**
 * How git's network commands reach a KB's remote: the SSH command and the HTTPS credential
 * helper, as git `-c` arguments and environment (pure). The token itself never appears in
 * argv, in the environment or in any message: the helper `cat`s the token file at the moment
 * git asks for a password and prints it into git's pipe (a shell builtin, so no process
 * carries it as an argument). Every inherited credential helper is cleared first, so no
 * `store` helper of the machine writes the token to disk. The helper is registered for the
 * configured remote's protocol and host only and checks them again itself, and HTTP redirects
 * are not followed, so a remote answering 302 to another host never receives the token
 * (docs/decisions.md). Every network command is bounded: low-speed limits for HTTP,
 * ConnectTimeout and keep-alives for SSH, and a hard kill (network-git.ts).
 */
import { shortenAbsolutePaths } from "../core/shorten-paths.js";
import { DEFAULT_NETWORK_TIMEOUT_MS } from "./network-git.js";

export interface RemoteAccessOptions {
  sshKey?: string;
  knownHosts?: string;
  tokenFile?: string;
  /** The remote the token belongs to: the helper answers for its protocol and host only. */
  remoteUrl?: string;
  /** Username the helper gives with the token (default `x-access-token`). */
  tokenUser?: string;
  /** `git.network_timeout` (default DEFAULT_NETWORK_TIMEOUT_MS). */
  networkTimeoutMs?: number;
}

export interface RemoteAccess {
  /** `-c` options to put before the git subcommand. */
  args: string[];
  /** Variables added to the server's environment for the git child. */
  env: Record<string, string>;
  /** Every network command is killed after this long (0 = never). */
  timeoutMs: number;
}

/** Environment variable naming the token file, read by the credential helper below. */
export const TOKEN_FILE_VAR = "CARTOGRAPHER_GIT_TOKEN_FILE";
/** The protocol and host (with port) the helper answers for; anything else gets nothing. */
export const TOKEN_PROTOCOL_VAR = "CARTOGRAPHER_GIT_TOKEN_PROTOCOL";
export const TOKEN_HOST_VAR = "CARTOGRAPHER_GIT_TOKEN_HOST";
export const TOKEN_USER_VAR = "CARTOGRAPHER_GIT_TOKEN_USER";

/**
 * The helper git runs as `sh -c '<this> get'`: reads git's request, and only when its protocol
 * and host are the configured remote's answers with a username and the trimmed content of the
 * token file; `store`/`erase` are ignored (nothing is ever saved).
 */
export const CREDENTIAL_HELPER = `!f() { test "$1" = get || exit 0; p=; h=; while IFS= read -r l; do test -z "$l" && break; case "$l" in protocol=*) p=\${l#protocol=};; host=*) h=\${l#host=};; esac; done; test -n "$${TOKEN_HOST_VAR}" && test "$p" = "$${TOKEN_PROTOCOL_VAR}" && test "$h" = "$${TOKEN_HOST_VAR}" || exit 0; t=$(tr -d '\\r\\n' < "$${TOKEN_FILE_VAR}") || exit 1; printf 'username=%s\\npassword=%s\\n' "$${TOKEN_USER_VAR}" "$t"; }; f`;

/** `https://host[:port]` of an HTTP(S) remote URL, or null (scp-like, ssh://, a path). */
export function httpOrigin(url: string): { protocol: string; host: string } | null {
  if (!/^https?:\/\//i.test(url)) return null;
  try {
    const u = new URL(url);
    return { protocol: u.protocol.replace(/:$/, ""), host: u.host };
  } catch {
    return null;
  }
}

/** Single-quotes `value` for the shell git runs GIT_SSH_COMMAND through. */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** ssh options that bound connecting and a silent connection (seconds, at least 1). */
export function sshTimeoutOptions(timeoutMs: number): string[] {
  if (timeoutMs <= 0) return [];
  const s = Math.max(1, Math.ceil(timeoutMs / 1000));
  const alive = Math.max(1, Math.ceil(s / 3));
  return [
    "-o",
    `ConnectTimeout=${s}`,
    "-o",
    `ServerAliveInterval=${alive}`,
    "-o",
    "ServerAliveCountMax=3",
  ];
}

/** GIT_SSH_COMMAND for a key: only that key, host key checked against known hosts. */
export function sshCommand(sshKey: string, knownHosts?: string, timeoutMs = 0): string {
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
  parts.push(...sshTimeoutOptions(timeoutMs));
  return parts.join(" ");
}

/**
 * The git options and environment for one remote. `inherited` is the server's environment: a
 * GIT_SSH_COMMAND or GIT_SSH of its own is kept (the hard kill still bounds it).
 */
export function remoteAccess(
  opts: RemoteAccessOptions,
  inherited: Readonly<Record<string, string | undefined>> = {},
): RemoteAccess {
  const timeoutMs = opts.networkTimeoutMs ?? DEFAULT_NETWORK_TIMEOUT_MS;
  // Never block on a terminal prompt: a server has none, a missing credential is an error.
  const env: Record<string, string> = { GIT_TERMINAL_PROMPT: "0" };
  const args: string[] = ["-c", "http.followRedirects=false"];
  if (timeoutMs > 0) {
    // curl aborts a transfer slower than 1 KB/s for this long (a silent server included).
    const s = String(Math.max(1, Math.ceil(timeoutMs / 1000)));
    args.push("-c", "http.lowSpeedLimit=1000", "-c", `http.lowSpeedTime=${s}`);
  }
  if (opts.sshKey) env.GIT_SSH_COMMAND = sshCommand(opts.sshKey, opts.knownHosts, timeoutMs);
  else if (!inherited.GIT_SSH_COMMAND && !inherited.GIT_SSH && timeoutMs > 0)
    env.GIT_SSH_COMMAND = ["ssh", ...sshTimeoutOptions(timeoutMs)].join(" ");
  if (opts.tokenFile) {
    // Inherited helpers are cleared whatever happens: none of them may store or answer.
    args.push("-c", "credential.helper=");
    const origin = opts.remoteUrl ? httpOrigin(opts.remoteUrl) : null;
    if (origin) {
      env[TOKEN_FILE_VAR] = opts.tokenFile;
      env[TOKEN_PROTOCOL_VAR] = origin.protocol;
      env[TOKEN_HOST_VAR] = origin.host;
      env[TOKEN_USER_VAR] = opts.tokenUser ?? "x-access-token";
      const scope = `${origin.protocol}://${origin.host}`;
      args.push("-c", `credential.${scope}.helper=${CREDENTIAL_HELPER}`);
    }
  }
  return { args, env, timeoutMs };
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
