/**
 * Every key of the Go implementation's v0.5 config (config.example.yaml, internal/config), with
 * what this server does with it — the ONE table the schema, the startup warnings and
 * docs/migrating-from-go.md follow (docs/decisions.md "Go v0.5 keys live in one data table").
 *
 *   implemented  same meaning here; the schema in schema.ts types it
 *   ignored      accepted (any value), one startup warning naming it; never fatal
 *   deprecated   accepted and ignored with its own D288 warning (resolve.ts warnDeprecated)
 *
 * To implement an `ignored` key: type it in schema.ts, use it in resolve.ts, and flip its status
 * here — the schema then stops tolerating any value and the warning goes away.
 * `section` is the YAML block the key sits in ("" = top level, "kbs[]" = each kbs entry).
 */

export type GoKeyStatus = "implemented" | "ignored" | "deprecated";

export type GoSection =
  | ""
  | "auth"
  | "kbs[]"
  | "git"
  | "search"
  | "audit"
  | "sops"
  | "tools"
  | "mcp";

export interface GoKey {
  readonly section: GoSection;
  readonly name: string;
  readonly status: GoKeyStatus;
  /** The Go-only environment variable of an `ignored` key (warned about the same way). */
  readonly env?: string;
  /** What differs, or what to use instead (rendered in docs/migrating-from-go.md). */
  readonly note: string;
}

const key = (
  section: GoSection,
  name: string,
  status: GoKeyStatus,
  note: string,
  env?: string,
): GoKey => (env ? { section, name, status, note, env } : { section, name, status, note });

/** The variables of the `sops` keys (sops-keys.ts reads them; the migration table names them). */
export const SOPS_AGE_KEY_FILE_VAR = "CARTOGRAPHER_SOPS_AGE_KEY_FILE";
export const SOPS_AGE_KEY_DIR_VAR = "CARTOGRAPHER_SOPS_AGE_KEY_DIR";

const GIT_SERVER_PROFILE = "server git profile here (Go's working branch + GitHub PR boundary)";

export const GO_KEYS: readonly GoKey[] = [
  key(
    "",
    "http",
    "implemented",
    "`:port` binds 127.0.0.1 here (Go: every interface); write `0.0.0.0:PORT` to listen everywhere",
  ),
  key(
    "",
    "init",
    "implemented",
    "every subfolder of `data` and every `kbs[].path` that is not a KB yet becomes one; a non-empty folder gets the layout written into it, nothing overwritten (as Go)",
  ),
  key("", "data", "implemented", "must exist unless `init` is set (Go created it silently)"),
  key("", "kbs", "implemented", "a `kbs[]` entry with only `remote` is cloned under `data`"),
  key(
    "auth",
    "mode",
    "implemented",
    "`on`/`off` (and true/false/yes/no/1/0) map to true/false; any other value is an error (Go fell back to auto)",
  ),
  key(
    "auth",
    "tokens",
    "implemented",
    "same forms: bare string = admin, or {token, id, scopes, roles}",
  ),
  key("auth", "roles", "implemented", "same D118 rules"),
  key("kbs[]", "path", "implemented", ""),
  key("kbs[]", "name", "implemented", ""),
  key("kbs[]", "allow_artifact_write", "implemented", ""),
  key("kbs[]", "tool_prefix", "deprecated", "tools are never prefixed (D288)"),
  key(
    "kbs[]",
    "remote",
    "implemented",
    "cloned into `<data>/<name>` (or `path`) when absent, then synced (docs/sync.md)",
  ),
  key("kbs[]", "ssh_key", "implemented", "GIT_SSH_COMMAND -i, StrictHostKeyChecking=yes"),
  key("kbs[]", "known_hosts", "implemented", "UserKnownHostsFile of the KB's ssh_key"),
  key("kbs[]", "author_name", "implemented", "same as kbs[].git_author.name (both needed)"),
  key("kbs[]", "author_email", "implemented", "same as kbs[].git_author.email"),
  key(
    "kbs[]",
    "committer_name",
    "implemented",
    "committer of rebases and merges (default: author)",
  ),
  key("kbs[]", "committer_email", "implemented", "with committer_name"),
  key(
    "kbs[]",
    "sops_age_key_file",
    "implemented",
    "the secret tools run the `sops` binary (installed separately) with this key",
  ),
  key("kbs[]", "artifact_signing_seed", "implemented", "signs the artifact_manifest entries"),
  key("kbs[]", "mcp_allowlist", "implemented", "entries {name, transport, target}"),
  ...[
    "git_profile",
    "git_base_branch",
    "git_working_branch",
    "git_forge",
    "github_owner",
    "github_repository",
    "github_api_url",
    "github_token_env",
  ].map((n) => key("kbs[]", n, "ignored", `no ${GIT_SERVER_PROFILE}`)),
  key("git", "autocommit", "implemented", ""),
  key(
    "git",
    "author_name",
    "implemented",
    "same as git.author.name; both author_name and author_email are needed",
  ),
  key("git", "author_email", "implemented", "same as git.author.email"),
  key("git", "committer_name", "implemented", "committer of rebases and merges (default: author)"),
  key("git", "committer_email", "implemented", "with committer_name"),
  key("git", "sync", "implemented", "env CARTOGRAPHER_GIT_SYNC; docs/sync.md"),
  key("git", "ssh_key", "implemented", "fallback of kbs[].ssh_key"),
  key("git", "known_hosts", "implemented", "fallback of kbs[].known_hosts"),
  key(
    "git",
    "token_dir",
    "implemented",
    "`<dir>/<kb>.token` via a credential helper; env CARTOGRAPHER_GIT_TOKEN_DIR",
  ),
  key("git", "in_window", "implemented", "env CARTOGRAPHER_SYNC_IN_WINDOW; seconds or `30s`"),
  key("git", "out_debounce", "implemented", "env CARTOGRAPHER_SYNC_OUT_DEBOUNCE; seconds or `3s`"),
  key("git", "profile", "ignored", `no ${GIT_SERVER_PROFILE}`, "CARTOGRAPHER_GIT_PROFILE"),
  ...[
    "base_branch",
    "working_branch",
    "forge",
    "github_owner",
    "github_repository",
    "github_api_url",
    "github_token_env",
  ].map((n) => key("git", n, "ignored", `no ${GIT_SERVER_PROFILE}`)),
  key(
    "search",
    "ollama_url",
    "implemented",
    "env CARTOGRAPHER_OLLAMA; turns on semantic/hybrid search with Ollama (= `search.embeddings` provider ollama, which wins)",
  ),
  key(
    "search",
    "ollama_model",
    "implemented",
    "env CARTOGRAPHER_OLLAMA_MODEL; default nomic-embed-text",
  ),
  key(
    "audit",
    "log",
    "implemented",
    "Go log files are read by `audit verify`/`export` and continued",
  ),
  key("audit", "key_seed", "implemented", "same 64-hex Ed25519 seed"),
  key("audit", "mode", "implemented", "an unknown mode is an error (Go fell back to required)"),
  key("audit", "max_segment_bytes", "implemented", "0 (Go's zero value) = no rotation, as unset"),
  key("audit", "archive_dir", "implemented", ""),
  key(
    "audit",
    "retention_days",
    "implemented",
    "0 (Go's zero value) = keep forever, as unset; age is the segment's last entry time (Go: file mtime)",
  ),
  key(
    "sops",
    "age_key_file",
    "implemented",
    "fallback key of every KB without one",
    SOPS_AGE_KEY_FILE_VAR,
  ),
  key(
    "sops",
    "age_key_dir",
    "implemented",
    "`<dir>/<kb name>.age` when it exists, before age_key_file",
    SOPS_AGE_KEY_DIR_VAR,
  ),
  key("tools", "profile", "implemented", "an unknown profile is an error (Go fell back to agent)"),
  key("mcp", "tool_prefix_mode", "deprecated", "tools are never prefixed (D288)"),
];

/** `git.sync`, `kbs[].remote`, `http`: how a key is written in messages and docs. */
export function goKeyPath(k: Pick<GoKey, "section" | "name">): string {
  return k.section === "" ? k.name : `${k.section}.${k.name}`;
}

/** The keys of `section` that are accepted without being implemented (any value). */
export function ignoredKeysOf(section: GoSection): string[] {
  return GO_KEYS.filter((k) => k.section === section && k.status === "ignored").map((k) => k.name);
}

export const MIGRATION_DOC = "docs/migrating-from-go.md";

export function notSupportedWarning(what: string): string {
  return `not supported here: ${what}; see ${MIGRATION_DOC}`;
}

/** True for a value an operator actually set (Go's zero values — "", false, null, [], {} — say nothing). */
function isSet(value: unknown): boolean {
  if (value === undefined || value === null || value === "" || value === false) return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === "object") return Object.keys(value).length > 0;
  return true;
}

/**
 * One warning per ignored Go key set in the raw YAML (kbs[] keys: one warning naming every entry
 * that sets it) and per Go-only environment variable that is set.
 */
export function goKeyWarnings(raw: unknown, env: Record<string, string | undefined>): string[] {
  const warnings: string[] = [];
  const root = isRecord(raw) ? raw : {};
  for (const k of GO_KEYS) {
    if (k.status !== "ignored") continue;
    if (k.section === "kbs[]") {
      const kbs = Array.isArray(root.kbs) ? root.kbs : [];
      const where = kbs.flatMap((entry, i) =>
        isRecord(entry) && isSet(entry[k.name]) ? [`kbs.${i}`] : [],
      );
      if (where.length > 0)
        warnings.push(notSupportedWarning(`${goKeyPath(k)} (${where.join(", ")})`));
    } else {
      const block = k.section === "" ? root : root[k.section];
      if (isRecord(block) && isSet(block[k.name])) warnings.push(notSupportedWarning(goKeyPath(k)));
    }
    if (k.env && isSet(env[k.env])) warnings.push(notSupportedWarning(k.env));
  }
  return warnings;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
