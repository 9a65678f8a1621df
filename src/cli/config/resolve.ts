/**
 * Resolves the server configuration ONCE, at the edge (design.md P7): defaults → YAML → env →
 * flags, into one validated, frozen object. Only src/cli reads the environment; it passes
 * `env` in here so the resolution itself is testable.
 */
import { existsSync, readFileSync } from "node:fs";
import { resolve as resolvePath } from "node:path";
import { parse as parseYaml } from "yaml";
import { SettingError } from "../../common/errors.js";
import type { McpAllowEntry } from "../../common/provisioning/mcp-descriptor.js";
import type { GitIdentity } from "../../kb/core/types.js";
import type { EmbeddingsConfig } from "../../search/embeddings/config.js";
import { warnDeprecated } from "./deprecated-keys.js";
import { resolveEmbeddings } from "./embeddings-keys.js";
import { applyGoSpellings } from "./go-aliases.js";
import { applyGoFlags, GIT_AUTOCOMMIT_VAR, type GoServeFlags } from "./go-flags.js";
import { goKeyWarnings } from "./go-keys.js";
import { dropGoZeroValues } from "./go-zero-values.js";
import { type HttpLimits, resolveHttpLimits } from "./http-limits.js";
import { checkDataDir, dedupeKbs, kbFoldersIn, mountSpec } from "./kb-specs.js";
import { resolvePublicUrl } from "./public-url.js";
import { describeIssues, type FileConfig, fileConfigSchema } from "./schema.js";
import { applySopsKeys, withKbSopsKey } from "./sops-keys.js";
import {
  checkRemoteKbs,
  envRemotes,
  kbRemoteKeys,
  remoteRoot,
  resolveSyncConfig,
  type SyncConfig,
} from "./sync-keys.js";
import {
  DEFAULT_HOST,
  DEFAULT_PORT,
  type HttpAddress,
  isLoopbackHost,
  parseBoolean,
  parseHttpAddress,
  parseList,
  parseRefreshSeconds,
} from "./values.js";

export interface ServeFlags extends GoServeFlags {
  config?: string;
  kb?: string[];
  data?: string;
  http?: string;
  stdio?: boolean;
  toolsProfile?: string;
  init?: boolean;
  mountMode?: string;
  tokens?: string;
  auth?: string;
  insecureNoAuth?: boolean;
  auditLog?: string;
  publicUrl?: string;
  maxConnections?: string;
}

export interface KbMountSpec {
  name: string;
  root: string;
  allowArtifactWrite: boolean;
  gitAuthor?: GitIdentity;
  /** Absolute path of the age key file for the secret tools (sops-keys.ts). */
  sopsAgeKeyFile?: string;
  /** Remote URL or path, cloned into `root` when absent (sync-keys.ts, issue 12). */
  remote?: string;
  sshKey?: string;
  knownHosts?: string;
  committer?: GitIdentity;
  /** Where the name and path came from, for messages. */
  source: string;
  /** `artifact_signing_seed` / `mcp_allowlist` (docs/provisioning.md). */
  artifactSigningSeed?: string;
  mcpAllowlist?: McpAllowEntry[];
}

export interface AuditSettings {
  log: string;
  mode: "best_effort" | "required";
  keySeedHex?: string;
  maxSegmentBytes?: number;
  archiveDir?: string;
  retentionDays?: number;
}

export interface ServerConfig {
  configPath: string | null;
  transport: "stdio" | "http";
  http: HttpAddress;
  /** The data directory whose KB subfolders are mounted (null when none). */
  dataDir: string | null;
  /** True when nothing named a KB: the embedded default (./cartographer-data with `notes`). */
  embeddedDefault: boolean;
  kbs: KbMountSpec[];
  /** `--init` / YAML `init`: create missing named KBs and KBs in empty data subfolders. */
  initMissing: boolean;
  toolsProfile: "agent" | "full";
  autocommit: boolean;
  corsOrigins: string[];
  allowedHosts: string[];
  allowedOrigins: string[];
  maxBodyBytes: number;
  /** Connection cap and timeouts of the HTTP server. */
  httpLimits: HttpLimits;
  /** Public base URL (behind a proxy) used in auth metadata; null = from the Host header. */
  publicUrl: string | null;
  /** Raw auth section + env/flag overrides, compiled by src/auth. */
  auth: { section: unknown; mode?: string; tokensEnv?: string };
  allowInsecureNoAuth: boolean;
  audit: AuditSettings | null;
  /** Seconds between background index refreshes of each KB (0 = off). */
  indexRefreshSeconds: number;
  /** Remote sync settings shared by every KB (issue 12, sync-keys.ts). */
  sync: SyncConfig;
  /** `search.embeddings` with the API key read (embeddings-keys.ts); null = keyword search only. */
  embeddings: EmbeddingsConfig | null;
  /** Startup warnings (deprecated keys, skipped KBs), each printed once by the caller. */
  warnings: string[];
}

export const EMBEDDED_DATA_DIR = "cartographer-data";
export const DEFAULT_INDEX_REFRESH_SECONDS = 30;
export const DEFAULT_MAX_BODY_BYTES = 2 * 1024 * 1024;

/**
 * Reads and validates a config file. Go's zero values are dropped and Go's docs spellings renamed
 * first (go-zero-values.ts, go-aliases.ts); the renames' warnings go to `warnings`.
 */
export function loadConfigFile(path: string, warnings: string[] = []): FileConfig {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    throw new SettingError(
      `config file ${path}: cannot read it (${(err as NodeJS.ErrnoException).code ?? err})`,
    );
  }
  let raw: unknown;
  try {
    raw = parseYaml(text) ?? {};
  } catch (err) {
    throw new SettingError(
      `config file ${path}: not valid YAML: ${(err as Error).message.split("\n")[0]}`,
    );
  }
  let normalized: unknown;
  try {
    normalized = applyGoSpellings(dropGoZeroValues(raw), warnings);
  } catch (err) {
    if (err instanceof SettingError) throw new SettingError(`config file ${path}: ${err.message}`);
    throw err;
  }
  const parsed = fileConfigSchema.safeParse(normalized);
  if (!parsed.success) {
    throw new SettingError(`config file ${path}: ${describeIssues(parsed.error, normalized)}`);
  }
  return parsed.data;
}

export function resolveServerConfig(
  flags: ServeFlags,
  processEnv: Record<string, string | undefined>,
  cwd: string,
): ServerConfig {
  // Go's --git-sync / --git-autocommit / --ollama stand in for their variables (go-flags.ts).
  const env = applyGoFlags(flags, processEnv);
  const warnings: string[] = [];
  const configPath = flags.config ?? env.CARTOGRAPHER_CONFIG ?? null;
  const file: FileConfig = configPath ? loadConfigFile(resolvePath(cwd, configPath), warnings) : {};
  const at = (p: string) => resolvePath(cwd, p);

  warnDeprecated(file, env, flags, warnings);
  warnings.push(...goKeyWarnings(file, env));

  const httpSetting =
    flags.http !== undefined
      ? ["--http", flags.http]
      : env.CARTOGRAPHER_HTTP
        ? ["CARTOGRAPHER_HTTP", env.CARTOGRAPHER_HTTP]
        : file.http !== undefined
          ? ["http", file.http]
          : null;
  const http = httpSetting
    ? parseHttpAddress(httpSetting[1] as string, httpSetting[0] as string)
    : { host: DEFAULT_HOST, port: DEFAULT_PORT };

  const data = flags.data ?? env.CARTOGRAPHER_DATA ?? file.data;
  // `--kb a,b` is two KBs, like CARTOGRAPHER_KB (and Go's --kb).
  const kbPaths =
    flags.kb && flags.kb.length > 0
      ? flags.kb.flatMap(parseList)
      : env.CARTOGRAPHER_KB
        ? parseList(env.CARTOGRAPHER_KB)
        : null;

  const profileRaw =
    flags.toolsProfile ?? env.CARTOGRAPHER_TOOLS_PROFILE ?? file.tools?.profile ?? "agent";
  if (profileRaw !== "agent" && profileRaw !== "full") {
    const key = flags.toolsProfile
      ? "--tools-profile"
      : env.CARTOGRAPHER_TOOLS_PROFILE
        ? "CARTOGRAPHER_TOOLS_PROFILE"
        : "tools.profile";
    throw new SettingError(`${key}: '${profileRaw}' is not a tools profile; use agent or full`);
  }
  const autocommit =
    env[GIT_AUTOCOMMIT_VAR] !== undefined
      ? parseBoolean(env[GIT_AUTOCOMMIT_VAR], GIT_AUTOCOMMIT_VAR)
      : (file.git?.autocommit ?? true);
  const globalAuthor = gitAuthorOf(file.git);

  const initMissing = flags.init ?? file.init ?? false;
  const embeddedDefault =
    data === undefined && kbPaths === null && (file.kbs === undefined || file.kbs.length === 0);
  const dataDir = embeddedDefault ? at(EMBEDDED_DATA_DIR) : data !== undefined ? at(data) : null;
  if (data !== undefined) {
    const key =
      flags.data !== undefined ? "--data" : env.CARTOGRAPHER_DATA ? "CARTOGRAPHER_DATA" : "data";
    // Remote KBs are cloned into it, so serve creates it for them too.
    const clones = envRemotes(env).length > 0 || (file.kbs ?? []).some((k) => k.remote && !k.path);
    checkDataDir(at(data), data, key, initMissing || clones);
  }

  const candidates: KbMountSpec[] = [];
  if (kbPaths) {
    for (const p of kbPaths)
      candidates.push(mountSpec(at(p), undefined, false, globalAuthor, `--kb ${p}`));
  } else {
    for (const [i, entry] of (file.kbs ?? []).entries()) {
      const keys = kbRemoteKeys(entry, i, at);
      // A `remote`-only entry is cloned into <data>/<name> (serve clones it when absent).
      const root = entry.path
        ? at(entry.path)
        : remoteRoot(dataDir, entry.remote as string, entry.name, `kbs.${i}.remote`);
      const spec = mountSpec(
        root,
        entry.name,
        entry.allow_artifact_write ?? false,
        entry.git_author ?? keys.author ?? globalAuthor,
        `kbs.${i}`,
      );
      const { author: _author, ...remoteKeys } = keys;
      const provisioning = {
        ...(entry.artifact_signing_seed
          ? { artifactSigningSeed: entry.artifact_signing_seed.toLowerCase() }
          : {}),
        ...(entry.mcp_allowlist ? { mcpAllowlist: entry.mcp_allowlist } : {}),
      };
      candidates.push(
        withKbSopsKey({ ...spec, ...remoteKeys, ...provisioning }, entry.sops_age_key_file, at),
      );
    }
  }
  for (const url of envRemotes(env)) {
    const root = remoteRoot(dataDir, url, undefined, "CARTOGRAPHER_KB_REMOTES");
    candidates.push({
      ...mountSpec(root, undefined, false, globalAuthor, "CARTOGRAPHER_KB_REMOTES"),
      remote: url,
    });
  }
  if (dataDir && existsSync(dataDir)) {
    for (const root of kbFoldersIn(dataDir))
      candidates.push(mountSpec(root, undefined, false, globalAuthor, `data ${dataDir}`));
  }
  const kbs = applySopsKeys(dedupeKbs(candidates, warnings), file.sops, env, at, warnings);

  const transport = flags.stdio
    ? "stdio"
    : flags.http !== undefined || env.CARTOGRAPHER_HTTP || file.http !== undefined
      ? "http"
      : kbPaths
        ? "stdio"
        : "http";

  const auditLog = flags.auditLog ?? env.CARTOGRAPHER_AUDIT_LOG ?? file.audit?.log;
  const audit: AuditSettings | null = auditLog
    ? {
        log: at(auditLog),
        mode: file.audit?.mode ?? "best_effort",
        // Go's zero value "" means unsigned, as an unset key does (issue 14).
        keySeedHex: env.CARTOGRAPHER_AUDIT_KEY || file.audit?.key_seed || undefined,
        maxSegmentBytes: file.audit?.max_segment_bytes,
        archiveDir: file.audit?.archive_dir ? at(file.audit.archive_dir) : undefined,
        retentionDays: file.audit?.retention_days,
      }
    : null;

  const config: ServerConfig = {
    configPath: configPath ? at(configPath) : null,
    transport,
    http,
    dataDir,
    embeddedDefault,
    kbs,
    initMissing,
    toolsProfile: profileRaw,
    autocommit,
    corsOrigins: file.cors?.origins ?? [],
    allowedHosts: file.allowed_hosts ?? [],
    allowedOrigins: file.allowed_origins ?? [],
    maxBodyBytes: file.max_body_bytes ?? DEFAULT_MAX_BODY_BYTES,
    httpLimits: resolveHttpLimits(file, env, flags),
    publicUrl: resolvePublicUrl(flags, env, file),
    auth: {
      section: goAuthSection(file.auth),
      mode: flags.auth ?? env.CARTOGRAPHER_AUTH,
      tokensEnv: flags.tokens ?? env.CARTOGRAPHER_TOKENS,
    },
    allowInsecureNoAuth: flags.insecureNoAuth ?? false,
    audit,
    sync: resolveSyncConfig(file, env, at),
    embeddings: resolveEmbeddings(file.search, env),
    indexRefreshSeconds: env.CARTOGRAPHER_INDEX_REFRESH_SECONDS
      ? parseRefreshSeconds(
          env.CARTOGRAPHER_INDEX_REFRESH_SECONDS,
          "CARTOGRAPHER_INDEX_REFRESH_SECONDS",
        )
      : (file.index?.refresh_seconds ?? DEFAULT_INDEX_REFRESH_SECONDS),
    warnings,
  };
  checkRemoteKbs(kbs, autocommit, config.sync, warnings);
  return deepFreeze(config);
}

/** `git.author`, or Go's `git.author_name` + `git.author_email` (both or neither). */
function gitAuthorOf(git: FileConfig["git"]): GitIdentity | undefined {
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

/** Go's `auth.mode: on|off` (and yes/no/1/0 strings) become the booleans src/auth reads. */
function goAuthSection(section: unknown): unknown {
  if (section === null || typeof section !== "object" || Array.isArray(section)) return section;
  const mode = (section as { mode?: unknown }).mode;
  if (typeof mode !== "string" || mode === "auto") return section;
  const lower = mode.trim().toLowerCase();
  const asBoolean = ["on", "true", "yes", "1"].includes(lower)
    ? true
    : ["off", "false", "no", "0"].includes(lower)
      ? false
      : undefined;
  return asBoolean === undefined ? section : { ...section, mode: asBoolean };
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

export { isLoopbackHost, kbFoldersIn };
