/**
 * Shared data types of the KB data plane. Pure: no I/O imports.
 * Every layer above kb/ speaks these types.
 */

import type { McpAllowEntry } from "../../common/provisioning/mcp-descriptor.js";

/** A scalar of the flat YAML subset used in frontmatter. */
export type FmScalar = string | number | boolean | null;
/** A frontmatter value: a scalar or a flat list of scalars (no nesting). */
export type FmValue = FmScalar | FmScalar[];
/** Frontmatter as plain data. Key order of the object is the on-disk order. */
export type Frontmatter = Record<string, FmValue>;

/** Where a concept lives, for authorization selectors and filters. */
export interface Placement {
  /** Top-level folder whose descriptor has kind `map` (or legacy `_archive.md`), else null. */
  map: string | null;
  /** Top-level folder whose descriptor has kind `journal`, else null. */
  journal: string | null;
}

/** One concept as read from disk. Ids never carry `data/` or `.md`. */
export interface ConceptDoc extends Placement {
  /** e.g. `infra/rete/gateway`, `services/db`. */
  id: string;
  /** KB-root-relative POSIX path, e.g. `data/infra/rete/gateway.md`. */
  path: string;
  frontmatter: Frontmatter;
  /** Markdown body after the frontmatter block. */
  body: string;
  /** Content hash (design.md §4), the value `if_match` compares against. */
  hash: string;
  /** `frontmatter.type` as a string ("" when missing — such a file fails validation). */
  type: string;
  /** `frontmatter.title` when a string, else null. */
  title: string | null;
  /** True when the concept is `<id>/index.md` (an expanded concept owner). */
  expanded: boolean;
}

export type MapKind = "map" | "journal";
export type OntologyMode = "strict" | "emergent" | "off";

/** A top-level folder's `_map.md` (or legacy `_archive.md`) descriptor. */
export interface MapDescriptor {
  /** Folder name under `data/`. */
  name: string;
  kind: MapKind;
  title: string;
  conceptTypes: string[];
  ontologyMode: OntologyMode;
  /** Fields every concept of the map must carry. */
  requiredFields: string[];
  /** `required_fields.<Type>`: extra fields per concept type. */
  requiredFieldsByType: Record<string, string[]>;
  requireIndexEntry: boolean;
  /** True when read from a legacy `_archive.md`. */
  legacy: boolean;
  /** KB-root-relative path of the descriptor file. */
  path: string;
  frontmatter: Frontmatter;
}

/** Git identity used for commits. */
export interface GitIdentity {
  name: string;
  email: string;
}

/** Per-KB settings resolved by the CLI config layer (nothing below cli/ reads the env). */
export interface KbSettings {
  /** Mount name (explicit `name`, else the normalized folder name). */
  name: string;
  /** Absolute path of the KB root (the git repository). */
  root: string;
  /** `allow_artifact_write` — registers artifact_write/artifact_delete. */
  allowArtifactWrite: boolean;
  /** KB-level git author; falls back to the global one, git's own, then cartographer. */
  gitAuthor?: GitIdentity;
  /** When false, writes are applied but not committed (`git.autocommit: false`). */
  autocommit: boolean;
  /** SOPS secrets (`kbs[].sops_age_key_file`); absent = secret tools answer not_configured. */
  sops?: SopsSettings;
  /** Remote sync (docs/sync.md, kb/sync/); absent = local only. */
  sync?: SyncSettings;
  /**
   * The environment local git commands start from (the CLI passes the server's). A write's
   * commit reads git's configuration and committer from it and writes the objects itself
   * (kb/git/path-commit.ts); absent, each write commits with `git commit <paths>`.
   */
  gitEnv?: Readonly<Record<string, string | undefined>>;
  /** `artifact_signing_seed` (64 hex): signs the KB's provisioning artifacts; absent = unsigned. */
  artifactSigningSeed?: string;
  /** `mcp_allowlist`: the only MCP descriptors the manifest offers; absent = none. */
  mcpAllowlist?: McpAllowEntry[];
}

/** How the sops child of one KB runs (src/kb/secrets/sops.ts). */
export interface SopsSettings {
  /** Absolute path of the age key file: SOPS_AGE_KEY_FILE in the child's env only. */
  ageKeyFile: string;
  /** The environment the child starts from (the CLI passes the server's own). */
  env: Readonly<Record<string, string | undefined>>;
  /** The executable, looked up on the env's PATH (default `sops`). */
  binary?: string;
}

/**
 * What a principal may see of one KB, as data (compiled by auth/, applied by search/ inside the
 * SQL query and by tools/ on in-memory collections). `all` = no restriction. Otherwise a
 * concept is visible when it matches at least one rule. Within a rule each non-empty selector
 * must match: the container selector is `maps ∪ journals` (a concept lives in at most one), and
 * `types` is intersected with it. An empty `rules` list means nothing is visible.
 */
export type Visibility = { all: true } | { all: false; rules: SelectorRule[] };

export interface SelectorRule {
  maps: string[];
  journals: string[];
  types: string[];
}

export const VISIBLE_ALL: Visibility = Object.freeze({ all: true }) as Visibility;

export interface SyncSettings {
  /** `git.sync`: false turns sync off even when the KB has an `origin`. */
  enabled: boolean;
  /** Pull before a call when the last successful pull is older than this (0 = every call). */
  inWindowMs: number;
  /** Push this long after the last commit of a burst (0 = inline, with bounded retries). */
  outDebounceMs: number;
  /** Background fetch/pull (and push of anything pending) every this many ms; 0 = off. */
  pollMs: number;
  /** Every git network command is killed after this long (`git.network_timeout`; 0 = never). */
  networkTimeoutMs?: number;
  /** The environment git's network commands start from (the server's own, from the CLI). */
  env: Readonly<Record<string, string | undefined>>;
  /** Per-KB SSH key: GIT_SSH_COMMAND with `-i` and StrictHostKeyChecking=yes. */
  sshKey?: string;
  /** known_hosts file for the SSH key (UserKnownHostsFile). */
  knownHosts?: string;
  /** `<git.token_dir>/<kb>.token`: HTTPS password read by a credential helper at run time. */
  tokenFile?: string;
  /** Committer of rebases and merge commits (default: the KB's author identity). */
  committer?: GitIdentity;
}

/** `sync_status` states (docs/sync.md); `diverged`: the remote was force-pushed (diverged.ts). */
export type SyncState = "disabled" | "no_remote" | "clean" | "pending" | "failed" | "diverged";

/** Remote sync defaults (docs/sync.md "Configuration"; seconds in the config). */
export const DEFAULT_IN_WINDOW_MS = 30_000;
export const DEFAULT_OUT_DEBOUNCE_MS = 3_000;
export const DEFAULT_POLL_MS = 60_000;
