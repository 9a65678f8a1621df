import type { ProviderId, Scope } from "../config.js";
import type { EntrySpec } from "../topology.js";

/** How an entry authenticates: by env var reference (preferred) or, opt-in, a literal token. */
export interface AuthRef {
  /** Name of the env var holding the bearer token. */
  tokenEnv?: string;
  /** Only for providers that cannot reference env vars, and only on explicit request. */
  literalToken?: string;
}

export interface ProviderFiles {
  /** The MCP configuration file. */
  config: string;
  /** The file that receives the managed instructions block. */
  instructions: string;
  /**
   * Where older versions of the provider (and of this client) kept the MCP file: connect and
   * disconnect remove our entries there, so a location change leaves no orphan behind.
   */
  legacyConfigs?: string[];
}

/** One agent tool whose MCP configuration the client writes. One file per provider. */
export interface ProviderAdapter {
  id: ProviderId;
  label: string;
  /** Whether the config file can reference an env var for the token (else see AuthRef). */
  referencesEnv: boolean;
  /**
   * Files for a scope; throws ConfigError when the provider has no file at that scope. `env` is
   * the environment the CLI passed in (Codex moves its user files to `$CODEX_HOME`).
   */
  paths(
    scope: Scope,
    home: string,
    cwd: string,
    env?: Record<string, string | undefined>,
  ): ProviderFiles;
  /** Entries in the file, name → URL (undefined when the entry has no URL). */
  listEntries(text: string | null, file: string): Map<string, string | undefined>;
  /** The new file text: `remove` names gone, `add` entries written, everything else kept. */
  applyEntries(
    text: string | null,
    file: string,
    remove: string[],
    add: EntrySpec[],
    auth: AuthRef,
  ): string;
  /** Whether the file holds `entry` as this client would write it. */
  entryMatches(text: string | null, file: string, entry: EntrySpec, auth: AuthRef): boolean;
  /** File mode to force on write (0600 when a literal token is written), else keep. */
  fileMode(auth: AuthRef): number | undefined;
}
