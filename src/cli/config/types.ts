/**
 * The shapes of the server configuration: what `serve` is given (flags, environment) and what
 * resolve.ts makes of it. Types only, so every part of src/cli/config can use them without
 * importing the resolver that uses the parts.
 */
import type { OAuthSettings } from "../../auth/oauth/types.js";
import type { McpAllowEntry } from "../../common/provisioning/mcp-descriptor.js";
import type { GitIdentity } from "../../kb/core/types.js";
import type { EmbeddingsConfig } from "../../search/embeddings/config.js";

export type Env = Readonly<Record<string, string | undefined>>;

/**
 * The Go implementation's `serve` flags, each over its variable like any flag:
 * `--git-sync[=bool]` (CARTOGRAPHER_GIT_SYNC), `--git-autocommit[=bool]`
 * (CARTOGRAPHER_GIT_AUTOCOMMIT), `--ollama <url>` (CARTOGRAPHER_OLLAMA). A boolean one is `true`
 * when given bare, else the text after `=`.
 */
export interface GoServeFlags {
  gitSync?: string | boolean;
  gitAutocommit?: string | boolean;
  ollama?: string;
}

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

export interface HttpAddress {
  host: string;
  port: number;
}

/** Connection cap and timeouts of the HTTP server (http-limits.ts). */
export interface HttpLimits {
  maxConnections: number;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
}

/** Console session limits (console-keys.ts). */
export interface ConsoleSettings {
  /** A session unused this long ends. */
  sessionIdleMs: number;
  /** A session ends this long after sign-in, however used. */
  sessionLifetimeMs: number;
}

/** Server-wide sync settings (sync-keys.ts; per-KB keys are on each KbMountSpec). */
export interface SyncConfig {
  /** `git.sync` / CARTOGRAPHER_GIT_SYNC (default on: sync runs when a KB has an origin). */
  enabled: boolean;
  inWindowMs: number;
  outDebounceMs: number;
  pollMs: number;
  /** `git.network_timeout` / CARTOGRAPHER_GIT_NETWORK_TIMEOUT: every git network command. */
  networkTimeoutMs: number;
  /** `git.token_dir` / CARTOGRAPHER_GIT_TOKEN_DIR (absolute), for `<dir>/<kb>.token`. */
  tokenDir?: string;
  sshKey?: string;
  knownHosts?: string;
  committer?: GitIdentity;
}

export interface KbMountSpec {
  name: string;
  root: string;
  allowArtifactWrite: boolean;
  gitAuthor?: GitIdentity;
  /** Absolute path of the age key file for the secret tools (sops-keys.ts). */
  sopsAgeKeyFile?: string;
  /** Remote URL or path, cloned into `root` when absent (sync-keys.ts). */
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

/** A raw override and the flag or variable it came from, for src/auth's messages. */
export interface SettingOverride {
  value: string;
  source: string;
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
  httpLimits: HttpLimits;
  /** Public base URL (behind a proxy) used in auth metadata; null = from the Host header. */
  publicUrl: string | null;
  /**
   * Raw auth section (without `oauth`) + `--auth`/CARTOGRAPHER_AUTH and `--tokens`/CARTOGRAPHER_TOKENS,
   * compiled by src/auth; `oauth` is `auth.oauth` resolved (oauth-keys.ts), absent when not configured.
   */
  auth: {
    section: unknown;
    mode?: SettingOverride;
    tokens?: SettingOverride;
    oauth?: OAuthSettings;
  };
  allowInsecureNoAuth: boolean;
  audit: AuditSettings | null;
  /** The governance console's session limits (console-keys.ts). */
  console: ConsoleSettings;
  /** GET /metrics (metrics-keys.ts); the token is a secret: never print it. */
  metrics: MetricsSettings;
  /** Seconds between background index refreshes of each KB (0 = off). */
  indexRefreshSeconds: number;
  /** Remote sync settings shared by every KB (sync-keys.ts). */
  sync: SyncConfig;
  /** `search.embeddings` with the API key read (embeddings-keys.ts); null = keyword search only. */
  embeddings: EmbeddingsConfig | null;
  /** Startup warnings (deprecated keys, skipped KBs), each printed once by the caller. */
  warnings: string[];
}

/** `metrics` resolved: served or not, and the scrape bearer (null: loopback peers only). */
export interface MetricsSettings {
  enabled: boolean;
  token: string | null;
}
